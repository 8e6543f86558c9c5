import type { Pool } from 'pg';
import { completeAbandonedKeys } from '@once/idempotency';
import type { AbandonedKeyResult, CompleteAbandonedKeysOptions } from '@once/idempotency';
import { listAbandonedKeys } from '../read-models/idempotency-keys/index.js';
import type { ProjectionLogger } from '../runner/projection-definition.js';
import { silentLogger } from '../runner/projection-definition.js';
import { abortableSleep } from '../runner/abortable-sleep.js';

/** What the completer needs to finish abandoned keys: the api's engine and its command handlers. */
export interface CompleterOptions {
  readonly engine: CompleteAbandonedKeysOptions['engine'];
  readonly handlers: CompleteAbandonedKeysOptions['handlers'];
  /** Turns first-format claims (the HTTP request) into typed commands. */
  readonly upcast?: CompleteAbandonedKeysOptions['upcast'];
  /** Pause between rounds. Default 5,000 ms. */
  readonly intervalMs?: number;
  /** Keys per round. Default 100. */
  readonly batchSize?: number;
  /** Clock (epoch ms) for "the lease has ended". Default `Date.now`. */
  readonly now?: () => number;
}

const completerLock = 'once:abandoned-key-completer';

/**
 * One round of the completer: takes the keys that the live `idempotency_keys` table says are in flight with an
 * expired lease and lets the engine finish them from their recovery point. One process at a time runs a round
 * (a session advisory lock, so no transaction stays open while the engine works); others skip it.
 *
 * @returns the engine's results, or undefined when another process holds the round
 * @example
 * await completeAbandonedKeysOnce(pool, { engine, handlers }, logger);
 */
export const completeAbandonedKeysOnce = async (
  pool: Pool,
  options: CompleterOptions,
  logger: ProjectionLogger,
): Promise<readonly AbandonedKeyResult[] | undefined> => {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    const lock = await client.query<{ acquired: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS acquired',
      [completerLock],
    );
    if (!lock.rows[0]?.acquired) return undefined;
    try {
      const table = await client.query<{ ready: boolean }>(
        `SELECT to_regclass('idempotency_keys') IS NOT NULL AS ready`,
      );
      // Before the key table's first version exists there is nothing to look at yet.
      if (!table.rows[0]?.ready) return [];
      const now = options.now?.() ?? Date.now();
      const rows = await listAbandonedKeys(pool, { now: new Date(now), limit: options.batchSize ?? 100 });
      if (rows.length === 0) return [];
      const results = await completeAbandonedKeys({
        engine: options.engine,
        handlers: options.handlers,
        ...(options.upcast === undefined ? {} : { upcast: options.upcast }),
        candidates: rows.map((row) => row.stream),
        now,
      });
      const finished = results.filter((result) => 'outcome' in result).length;
      logger.info({ candidates: rows.length, finished }, 'completed abandoned idempotency keys');
      return results;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [completerLock]);
    }
  } catch (error) {
    failed = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(failed);
  }
};

/** A running completer. */
export interface Completer {
  /** Ends the loop after the round in hand. */
  stop(): Promise<void>;
}

/**
 * The completer: a round (`completeAbandonedKeysOnce`) every `intervalMs`, until stopped. The projector process runs
 * it, and the api in-process for `npm start`; any number may run against one database, one round at a time under the
 * advisory lock, so no key is completed twice.
 *
 * @example
 * const completer = startCompleter(pool, { engine, handlers, upcast }, logger);
 * await completer.stop();
 */
export const startCompleter = (
  pool: Pool,
  options: CompleterOptions,
  logger: ProjectionLogger = silentLogger,
): Completer => {
  const stopController = new AbortController();
  const loop = async (): Promise<void> => {
    while (!stopController.signal.aborted) {
      await abortableSleep(options.intervalMs ?? 5000, stopController.signal);
      if (stopController.signal.aborted) break;
      await completeAbandonedKeysOnce(pool, options, logger).catch((error: unknown) =>
        logger.error({ err: error }, 'completer round failed'),
      );
    }
  };
  const running = loop();
  return {
    stop: async () => {
      stopController.abort();
      await running;
    },
  };
};
