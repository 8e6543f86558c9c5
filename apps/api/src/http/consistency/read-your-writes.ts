import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatPosition, parsePosition } from '@once/event-store';
import type { GlobalPosition } from '@once/event-store';
import { HttpProblem } from '@once/cafe';

/** Response header of every request that wrote (or replayed a write): where that write sits in the global order. */
export const positionHeader = 'once-position';
/** Request header of a read: answer only once the read model has applied everything up to this position. */
export const minPositionHeader = 'once-min-position';
/** Response header of a read whose wait ran out: the answer may not show the write yet. */
export const staleHeader = 'once-stale';

/** The read models the GET routes serve, by projection name. */
export type ReadModelProjection =
  'invoices' | 'orders' | 'stock_counts' | 'idempotency_keys' | 'card_settlements' | 'menu_entries';

/** A position as the opaque token clients get and give back. */
export const positionToken = (position: GlobalPosition): string => formatPosition(position);

/** `Once-Min-Position` as documented on every GET route. */
export const readConsistencyHeaders = z.object({
  [minPositionHeader]: z
    .string()
    .optional()
    .describe(
      'Optional. The `Once-Position` a write returned: the read waits (at most 5 s by default) until the read model ' +
        'has applied it, so it shows that write. Without it the read answers at once from the read model, usually ' +
        'milliseconds behind. If the wait runs out, the answer comes anyway with `Once-Stale: true`.',
    ),
});

/** The description every read route carries: where the data comes from and how fresh it is. */
export const readModelDescription = (what: string): string =>
  `${what} Served from the read model (eventually consistent). Send \`Once-Min-Position\` with the \`Once-Position\` ` +
  'of your write to read it back: the answer waits, bounded, until the read model has it; when the bound passes it ' +
  'answers with what the read model has and `Once-Stale: true` (a 404 then may only mean "not projected yet").';

const parseMinPosition = (request: FastifyRequest): GlobalPosition | undefined => {
  const lines = request.raw.headersDistinct[minPositionHeader];
  if (lines === undefined) return undefined;
  const position = lines.length === 1 ? parsePosition((lines[0] as string).trim()) : undefined;
  if (!position) {
    throw new HttpProblem('invalid-position', {
      detail: 'Once-Min-Position is not a position this api returned',
      extensions: {
        reason: lines.length === 1 ? 'malformed' : 'repeated',
      },
    });
  }
  return position;
};

/**
 * A GET route's read of a read model, consistent with the caller's own write when it asks: with
 * `Once-Min-Position`, waits (at most `app.readWaitMs`) until `projection` has applied that position, then reads;
 * if the wait runs out it reads anyway and marks the answer `Once-Stale: true`. A malformed token is a 400 problem;
 * read models that do not exist yet (an external projector that has not started) are a 503 with `Retry-After`.
 *
 * @example
 * const invoice = await readYourWrites(request, reply, 'invoices', () => getInvoice(app.pg, tenantId, id));
 */
export const readYourWrites = async <T>(
  request: FastifyRequest,
  reply: FastifyReply,
  projection: ReadModelProjection,
  read: () => Promise<T>,
): Promise<T> => {
  const wanted = parseMinPosition(request);
  try {
    if (wanted) {
      const reached = await waitUntilProjected(request, reply, projection, wanted);
      if (!reached) void reply.header(staleHeader, 'true');
    }
    return await read();
  } catch (error) {
    // An external projector that has not started yet has created no read models: retryable, not a defect.
    if (isUndefinedTable(error)) {
      throw new HttpProblem('service-unavailable', {
        detail: 'the read models are not built yet',
        retryAfterSeconds: 1,
      });
    }
    throw error;
  }
};

/**
 * Waits on the app's shared position watcher, until the client leaves at the latest; refuses a position past the
 * log's head (400) and a read beyond the watcher's cap (503).
 */
const waitUntilProjected = async (
  request: FastifyRequest,
  reply: FastifyReply,
  projection: ReadModelProjection,
  wanted: GlobalPosition,
): Promise<boolean> => {
  const app = request.server;
  if (await app.readWaits.isPastHead(wanted)) {
    throw new HttpProblem('position-ahead', {
      detail: 'Once-Min-Position names a position the log has not reached',
    });
  }
  const left = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) left.abort();
  };
  reply.raw.once('close', onClose);
  try {
    const wait = app.readWaits.watcher.waitFor(projection, positionToken(wanted), {
      timeoutMs: app.readWaitMs,
      signal: left.signal,
    });
    if (!wait) {
      throw new HttpProblem('too-many-waiting-reads', {
        detail: 'too many reads are waiting for their position',
        retryAfterSeconds: 1,
      });
    }
    return (await wait) === 'reached';
  } finally {
    reply.raw.off('close', onClose);
  }
};

const isUndefinedTable = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === '42P01';
