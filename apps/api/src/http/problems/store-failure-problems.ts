import { HttpProblem } from '@once/cafe';
import type { ApiProblemType } from '@once/cafe';

/** How a store failure is answered: its problem type and how long a client should wait before retrying. */
interface StoreFailure {
  readonly type: ApiProblemType;
  readonly retryAfterSeconds: number;
  readonly detail: string;
}

/** SQLSTATEs (PostgreSQL) and socket errors that are worth a retry later, by what they mean. */
const failuresByCode: Readonly<Record<string, StoreFailure>> = {
  '53100': { type: 'storage-full', retryAfterSeconds: 60, detail: 'the database is out of disk space' },
  '25006': {
    type: 'database-read-only',
    retryAfterSeconds: 10,
    detail: 'the database accepts no writes now',
  },
  '57014': { type: 'statement-timeout', retryAfterSeconds: 2, detail: 'a database statement took too long' },
  '53300': { type: 'database-busy', retryAfterSeconds: 1, detail: 'the database has no free connection' },
  '53200': { type: 'database-busy', retryAfterSeconds: 1, detail: 'the database is out of memory' },
  '57P01': { type: 'service-unavailable', retryAfterSeconds: 1, detail: 'the database is shutting down' },
  '57P02': { type: 'service-unavailable', retryAfterSeconds: 1, detail: 'the database is restarting' },
  '57P03': { type: 'service-unavailable', retryAfterSeconds: 1, detail: 'the database is starting up' },
  ECONNREFUSED: {
    type: 'service-unavailable',
    retryAfterSeconds: 1,
    detail: 'the database refused a connection',
  },
  ECONNRESET: {
    type: 'service-unavailable',
    retryAfterSeconds: 1,
    detail: 'the database connection was reset',
  },
  ETIMEDOUT: { type: 'service-unavailable', retryAfterSeconds: 1, detail: 'the database did not answer' },
  EPIPE: { type: 'service-unavailable', retryAfterSeconds: 1, detail: 'the database connection broke' },
};

const connectionLost: StoreFailure = {
  type: 'service-unavailable',
  retryAfterSeconds: 1,
  detail: 'the database connection failed',
};

/** pg-pool's error when every connection stays busy for `connectionTimeoutMillis` (it carries no code). */
const poolExhaustedMessage = 'timeout exceeded when trying to connect';
const poolExhausted: StoreFailure = {
  type: 'database-busy',
  retryAfterSeconds: 1,
  detail: 'every database connection of this process is busy',
};

const failureOf = (error: Error): StoreFailure | undefined => {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined) {
    const known = failuresByCode[code];
    if (known) return known;
    if (code.startsWith('08')) return connectionLost;
  }
  if (error.message === poolExhaustedMessage) return poolExhausted;
  if (error.message === 'Connection terminated unexpectedly') return connectionLost;
  return undefined;
};

/**
 * The problem a store failure stands for: 503 with `Retry-After` and a type per cause (disk full, read-only,
 * statement timeout, no free connection, connection lost), looked for along the error's `cause` chain (adapters wrap
 * driver errors). Undefined for anything else. Such answers are never stored with a key: the engine stores no 5xx.
 *
 * @example
 * storeFailureProblem(Object.assign(new Error('canceling statement'), { code: '57014' }))?.type; // 'statement-timeout'
 */
export const storeFailureProblem = (error: unknown): HttpProblem | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const failure = failureOf(current);
    if (failure)
      return new HttpProblem(failure.type, {
        detail: failure.detail,
        retryAfterSeconds: failure.retryAfterSeconds,
      });
    current = current.cause;
  }
  return undefined;
};
