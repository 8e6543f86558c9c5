import type { Pool } from 'pg';
import { completeAbandonedKeys, startCompleter } from '@once/idempotency';
import type { AbandonedKeyResult, CompleteAbandonedKeysOptions, RunningCompleter } from '@once/idempotency';
import type { ProjectionLogger } from '@once/projections';
import { abandonedKeyCursor, listAbandonedKeys } from './idempotency-keys.queries.js';
import type { AbandonedKeyCursor } from './idempotency-keys.queries.js';

/** What the completer needs to finish abandoned keys: the api's engine and its command handlers. */
export interface CompleterOptions {
  readonly engine: CompleteAbandonedKeysOptions['engine'];
  readonly handlers: CompleteAbandonedKeysOptions['handlers'];
  /** Pause between rounds. Default 5,000 ms. */
  readonly intervalMs?: number;
  /** Stops the completer when aborted (`startAbandonedKeyCompleter`). */
  readonly signal?: AbortSignal;
  /** Keys per round. Default 100. */
  readonly batchSize?: number;
  /** Clock (epoch ms) for "the lease has ended". Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Told at the end of each walk through the abandoned keys (every page once) the keys the completer passed over
   * because it has no handler for their command (for a metric and the logs). Keys it can resume are never here.
   */
  readonly onWalkEnd?: (walk: CompleterWalkReport) => void;
}

/** A key the completer cannot resume: no handler here for the command its claim recorded. */
export interface UnresumableKey {
  readonly stream: string;
  readonly tenantId: string;
  readonly key: string;
  readonly commandType: string;
  readonly leaseExpiredAt: string;
}

/** What one walk through every abandoned key found. */
export interface CompleterWalkReport {
  readonly unresumable: readonly UnresumableKey[];
}

/**
 * Where the completer's walk through the abandoned keys stands between rounds: each round takes the page after the
 * cursor, so keys it passes over (no handler) never hold back the rest; a short page ends the walk.
 */
export interface CompleterWalk {
  after: AbandonedKeyCursor | undefined;
  unresumable: UnresumableKey[];
}

/**
 * A walk from the first abandoned key.
 *
 * @example
 * const walk = newCompleterWalk();
 * await completeAbandonedKeysOnce(pool, options, logger, walk);
 */
export const newCompleterWalk = (): CompleterWalk => ({ after: undefined, unresumable: [] });

const completerLock = 'once:abandoned-key-completer';

/**
 * One round of the completer: takes the next page of keys that the live `idempotency_keys` table says are in flight
 * with an expired lease (after `walk`'s cursor) and lets the engine finish them from their recovery point. One
 * process at a time runs a round (a session advisory lock, so no transaction stays open while the engine works);
 * others skip it.
 *
 * @param walk where the walk stands; a fresh one (from the first key) when omitted
 * @returns the engine's results, or undefined when another process holds the round
 * @example
 * await completeAbandonedKeysOnce(pool, { engine, handlers }, logger);
 */
export const completeAbandonedKeysOnce = async (
  pool: Pool,
  options: CompleterOptions,
  logger: ProjectionLogger,
  walk: CompleterWalk = newCompleterWalk(),
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
      const limit = options.batchSize ?? 100;
      const rows = await listAbandonedKeys(pool, {
        now: new Date(now),
        limit,
        ...(walk.after === undefined ? {} : { after: walk.after }),
      });
      // The cursor moves before the engine runs: a key whose resume fails holds back no other key either.
      const last = rows.at(-1);
      const walkEnds = rows.length < limit || last === undefined;
      walk.after = walkEnds ? undefined : abandonedKeyCursor(last);
      const results =
        rows.length === 0
          ? []
          : await completeAbandonedKeys({
              engine: options.engine,
              handlers: options.handlers,
              candidates: rows.map((row) => row.stream),
              now,
            });
      const byStream = new Map(rows.map((row) => [row.stream, row]));
      for (const result of results) {
        const row = byStream.get(result.keyStream);
        if (!('skipped' in result) || result.skipped !== 'no-handler' || row === undefined) continue;
        walk.unresumable.push({
          stream: row.stream,
          tenantId: row.tenant_id,
          key: row.key,
          commandType: result.commandType,
          leaseExpiredAt: row.locked_until ?? row.updated_at,
        });
      }
      const finished = results.filter((result) => 'outcome' in result).length;
      if (rows.length > 0) {
        logger.info({ candidates: rows.length, finished }, 'completed abandoned idempotency keys');
      }
      if (walkEnds) {
        const { unresumable } = walk;
        walk.unresumable = [];
        if (unresumable.length > 0) {
          logger.warn(
            {
              unresumable: unresumable.length,
              commandTypes: [...new Set(unresumable.map((key) => key.commandType))],
            },
            'abandoned idempotency keys no handler here can resume: an operator must settle them',
          );
        }
        options.onWalkEnd?.({ unresumable });
      }
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
 * Starts the completer over the key table (`startCompleter` with `completeAbandonedKeysOnce` as its round): a round
 * every `intervalMs` (5 s by default), one process at a time, a failed round logged and the next run as usual.
 *
 * @param logger where rounds and failed rounds are logged
 * @example
 * const completer = startAbandonedKeyCompleter(pool, { engine, handlers }, logger);
 * await completer.stop();
 */
export const startAbandonedKeyCompleter = (
  pool: Pool,
  options: CompleterOptions,
  logger: ProjectionLogger,
): RunningCompleter => {
  const walk = newCompleterWalk();
  return startCompleter({
    round: () => completeAbandonedKeysOnce(pool, options, logger, walk),
    onError: (error) => logger.error({ task: 'completer', err: error }, 'completer round failed'),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
};
