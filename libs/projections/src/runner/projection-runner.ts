import type { Pool, PoolClient } from 'pg';
import type { EventStore, GlobalPosition, ReadAllBatch, RecordedEvent } from '@once/event-store';
import { comparePositions, formatPosition, parsePosition } from '@once/event-store';
import { BatchUnitOfWork } from '../tables/unit-of-work.js';
import type { ProjectionDefinition, ProjectionLogger } from './projection-definition.js';
import { silentLogger } from './projection-definition.js';
import { abortableSleep } from './abortable-sleep.js';

/** Another writer moved the checkpoint of this (projection, version) under us: this runner must not write on. */
export class CheckpointConflictError extends Error {
  readonly code = 'checkpoint-conflict';

  constructor(
    readonly projection: string,
    readonly version: number,
    readonly expected: string | null,
    options?: { cause?: unknown },
  ) {
    super(`checkpoint of ${projection} v${version} is no longer ${expected ?? 'empty'}`, options);
    this.name = 'CheckpointConflictError';
  }
}

/** Where tests inject crashes. */
export interface RunnerFaults {
  /** Runs after a batch's rows and checkpoint are written, before COMMIT. Throw to crash there. */
  readonly beforeCommit?: (batch: { readonly events: readonly RecordedEvent[]; readonly client: PoolClient }) =>
    | void
    | Promise<void>;
}

/** What one committed batch did. */
export interface BatchReport {
  readonly projection: string;
  readonly version: number;
  readonly events: number;
  readonly checkpoint: GlobalPosition;
  readonly caughtUp: boolean;
  /** Events applied by this runner so far. */
  readonly totalEvents: number;
}

export type RunnerState = 'starting' | 'standby' | 'leading' | 'stopped';

export interface ProjectionRunnerOptions {
  readonly pool: Pool;
  readonly store: EventStore;
  readonly projection: ProjectionDefinition;
  /** The physical version whose tables and checkpoint this runner writes. */
  readonly version: number;
  /** Events per read and per transaction. Default 2,000. */
  readonly batchSize?: number;
  /** Pause between reads once caught up. Default 100 ms. */
  readonly pollIntervalMs?: number;
  /** Pause between attempts to take the lease while another runner holds it. Default 1,000 ms. */
  readonly leaseRetryMs?: number;
  /** Return once the log has been read to its end (for rebuilds) instead of following it. */
  readonly stopWhenCaughtUp?: boolean;
  readonly logger?: ProjectionLogger;
  readonly onBatch?: (report: BatchReport) => void;
  readonly onStateChange?: (state: RunnerState) => void;
  readonly faults?: RunnerFaults;
  readonly signal?: AbortSignal;
}

/** A running projection: a standby until it holds the lease, then the single writer of its version. */
export interface ProjectionRunner {
  state(): RunnerState;
  /** Stops after the batch in hand; resolves when the lease is given back. */
  stop(): Promise<void>;
  /** Resolves when stopped (or caught up with `stopWhenCaughtUp`); rejects when a batch failed. */
  readonly done: Promise<void>;
}

/**
 * Starts a projection runner. It takes a session advisory lock on a connection of its own (the lease: released by
 * PostgreSQL when that connection drops), reads the global order after its checkpoint, and commits each batch's
 * read-model changes together with a compare-and-set of the checkpoint, so no event is applied twice or skipped.
 * While another runner holds the lease it waits as a standby and retries every `leaseRetryMs`.
 *
 * @example
 * const runner = startProjectionRunner({ pool, store, projection: invoicesProjection, version: 1 });
 * await runner.stop();
 */
export const startProjectionRunner = (options: ProjectionRunnerOptions): ProjectionRunner => {
  const { pool, store, projection, version } = options;
  const batchSize = options.batchSize ?? 2000;
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const leaseRetryMs = options.leaseRetryMs ?? 1000;
  const logger = options.logger ?? silentLogger;
  const leaseName = `projection:${projection.name}:v${version}`;
  const filter = {
    ...(projection.eventTypes ? { eventTypes: projection.eventTypes } : {}),
    ...(projection.streamPrefixes ? { streamPrefixes: projection.streamPrefixes } : {}),
  };
  const stopController = new AbortController();
  let state: RunnerState = 'starting';
  let totalEvents = 0;

  const setState = (next: RunnerState): void => {
    if (state === next) return;
    state = next;
    options.onStateChange?.(next);
  };

  const read = (after: GlobalPosition | undefined): Promise<ReadAllBatch> => {
    const pending = store.readAll({ ...(after ? { after } : {}), filter, maxCount: batchSize });
    pending.catch(() => undefined);
    return pending;
  };

  const commitBatch = async (
    client: PoolClient,
    batch: ReadAllBatch,
    previous: string | null,
    next: string,
  ): Promise<void> => {
    await client.query('BEGIN');
    try {
      const moved = await client.query(
        `UPDATE projection_checkpoints SET position = $3, updated_at = now()
          WHERE name = $1 AND version = $2 AND position IS NOT DISTINCT FROM $4`,
        [projection.name, version, next, previous],
      );
      if (moved.rowCount !== 1) throw new CheckpointConflictError(projection.name, version, previous);
      if (batch.events.length > 0) {
        const work = new BatchUnitOfWork(client, version);
        if (projection.reads) await work.prefetch(batch.events.flatMap((event) => projection.reads?.(event) ?? []));
        for (const event of batch.events) await projection.apply(work, event);
        await work.flush();
      }
      await options.faults?.beforeCommit?.({ events: batch.events, client });
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  };

  /** Applies batches while holding the lease; returns when stopped, or caught up with `stopWhenCaughtUp`. */
  const lead = async (client: PoolClient): Promise<void> => {
    await client.query(
      'INSERT INTO projection_checkpoints (name, version, position) VALUES ($1, $2, NULL) ON CONFLICT DO NOTHING',
      [projection.name, version],
    );
    const stored = await client.query<{ position: string | null }>(
      'SELECT position FROM projection_checkpoints WHERE name = $1 AND version = $2',
      [projection.name, version],
    );
    let checkpointText = stored.rows[0]?.position ?? null;
    let checkpoint = checkpointText === null ? undefined : parsePosition(checkpointText);
    if (checkpointText !== null && !checkpoint) throw new Error(`${leaseName}: unreadable checkpoint ${checkpointText}`);
    let pending = read(checkpoint);
    while (!stopController.signal.aborted) {
      const batch = await pending;
      const moved =
        batch.checkpoint !== undefined && (checkpoint === undefined || comparePositions(batch.checkpoint, checkpoint) > 0);
      if (!moved || batch.checkpoint === undefined) {
        if (batch.caughtUp && options.stopWhenCaughtUp) return;
        await abortableSleep(pollIntervalMs, stopController.signal);
        pending = read(checkpoint);
        continue;
      }
      const nextCheckpoint = batch.checkpoint;
      if (!batch.caughtUp) pending = read(nextCheckpoint);
      const nextText = formatPosition(nextCheckpoint);
      await commitBatch(client, batch, checkpointText, nextText);
      checkpointText = nextText;
      checkpoint = nextCheckpoint;
      totalEvents += batch.events.length;
      options.onBatch?.({
        projection: projection.name,
        version,
        events: batch.events.length,
        checkpoint: nextCheckpoint,
        caughtUp: batch.caughtUp,
        totalEvents,
      });
      if (batch.caughtUp) {
        if (options.stopWhenCaughtUp) return;
        await abortableSleep(pollIntervalMs, stopController.signal);
        pending = read(checkpoint);
      }
    }
  };

  const run = async (): Promise<void> => {
    while (!stopController.signal.aborted) {
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        if (!isConnectionLoss(error)) throw error;
        logger.warn({ projection: leaseName, err: error }, 'cannot reach the read-model database; retrying');
        await abortableSleep(leaseRetryMs, stopController.signal);
        continue;
      }
      const onConnectionError = (error: Error): void =>
        logger.warn({ projection: leaseName, err: error }, 'lease connection failed');
      client.on('error', onConnectionError);
      let leading = false;
      let failure: unknown;
      try {
        leading = await waitForLease(client);
        if (!leading) return;
        setState('leading');
        logger.info({ projection: leaseName }, 'took the projection lease');
        await lead(client);
        if (options.stopWhenCaughtUp) return;
      } catch (error) {
        failure = error;
        if (!isConnectionLoss(error) || stopController.signal.aborted) throw error;
        logger.warn({ projection: leaseName, err: error }, 'lost the projection lease; back to standby');
      } finally {
        if (failure === undefined && leading) {
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [leaseName]).catch(() => undefined);
        }
        client.off('error', onConnectionError);
        // A failed connection is destroyed, which also ends any transaction and frees the lease.
        client.release(failure === undefined ? undefined : asError(failure));
      }
      setState('standby');
      await abortableSleep(leaseRetryMs, stopController.signal);
    }
  };

  const waitForLease = async (client: PoolClient): Promise<boolean> => {
    while (!stopController.signal.aborted) {
      const result = await client.query<{ acquired: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS acquired',
        [leaseName],
      );
      if (result.rows[0]?.acquired) return true;
      setState('standby');
      await abortableSleep(leaseRetryMs, stopController.signal);
    }
    return false;
  };

  const done = run().finally(() => setState('stopped'));
  done.catch(() => undefined);
  if (options.signal) {
    if (options.signal.aborted) stopController.abort();
    else options.signal.addEventListener('abort', () => stopController.abort(), { once: true });
  }

  return {
    state: () => state,
    stop: async () => {
      stopController.abort();
      await done.catch(() => undefined);
    },
    done,
  };
};


const connectionErrorCodes = new Set(['57P01', '57P02', '57P03', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED']);

/** True for errors that mean the lease connection is gone (so is the lease), not that a batch is wrong. */
const isConnectionLoss = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionErrorCodes.has(code) || code.startsWith('08'))) return true;
  return /Connection terminated|connection is closed|Client has encountered a connection error/i.test(error.message);
};

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
