import type { Pool } from 'pg';
import { completeAbandonedKeys } from '@once/idempotency';
import type { AbandonedKeyResult, CompleteAbandonedKeysOptions } from '@once/idempotency';
import { startTask } from '@once/projections';
import type { ProjectionLogger, ProjectorTask, RunningTask } from '@once/projections';
import { listAbandonedKeys } from './idempotency-keys.queries.js';

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

/**
 * The completer as a task of the projector: a round every `intervalMs` (5 s by default).
 *
 * @example
 * await startProjector({ pool, store, projections, tasks: [abandonedKeyCompleter(pool, { engine, handlers })] });
 */
export const abandonedKeyCompleter = (pool: Pool, options: CompleterOptions): ProjectorTask => ({
  name: 'completer',
  intervalMs: options.intervalMs ?? 5000,
  run: async (logger) => {
    await completeAbandonedKeysOnce(pool, options, logger);
  },
});

/**
 * The completer on its own, for a process that runs no projector (the api in-process for `npm start`, beside its own
 * projector plugin, or the projector process): any number may run against one database, one round at a time under
 * the advisory lock, so no key is completed twice.
 *
 * @example
 * const completer = startCompleter(pool, { engine, handlers, upcast }, logger);
 * await completer.stop();
 */
export const startCompleter = (pool: Pool, options: CompleterOptions, logger: ProjectionLogger): RunningTask =>
  startTask(abandonedKeyCompleter(pool, options), logger);
