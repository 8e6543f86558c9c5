import type { Pool, PoolClient } from 'pg';
import type {
  EventStore,
  GlobalFilter,
  GlobalPosition,
  ReadAllBatch,
  RecordedEvent,
} from '@once/event-store';
import { comparePositions, formatPosition, parsePosition } from '@once/event-store';
import { physicalTableName } from '../tables/table-definition.js';
import { BatchUnitOfWork, RowCache, StatementParameters } from '../tables/unit-of-work.js';
import { checkpointConflictCode } from '../schema/projections-schema.js';
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
  /**
   * Runs once a batch is applied in memory, before the statement that writes its rows and moves its checkpoints
   * (one transaction) is sent. Throw to crash there.
   */
  readonly beforeWrite?: (batch: {
    readonly events: readonly RecordedEvent[];
    readonly client: PoolClient;
  }) => void | Promise<void>;
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

/** One projection version a runner writes. */
export interface RunnerTarget {
  readonly projection: ProjectionDefinition;
  /** The physical version whose tables and checkpoint are written. */
  readonly version: number;
}

interface RunnerSettings {
  readonly pool: Pool;
  readonly store: EventStore;
  /** Events per read and per transaction. Default 2,000. */
  readonly batchSize?: number;
  /** Rows per table kept in memory across batches while leading. Default 10,000 (a rebuild uses more). */
  readonly rowCacheSize?: number;
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

export interface ProjectionRunnerOptions extends RunnerSettings {
  readonly projection: ProjectionDefinition;
  /** The physical version whose tables and checkpoint this runner writes. */
  readonly version: number;
}

export interface ProjectionGroupRunnerOptions extends RunnerSettings {
  readonly targets: readonly RunnerTarget[];
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
export const startProjectionRunner = (options: ProjectionRunnerOptions): ProjectionRunner =>
  startProjectionGroupRunner({
    ...options,
    targets: [{ projection: options.projection, version: options.version }],
  });

/** A batch applied in memory: its members with their share of the events, and the parts of its statement. */
interface PreparedBatch {
  readonly batch: ReadAllBatch;
  readonly next: GlobalPosition;
  readonly applied: ReadonlyMap<TargetState, number>;
  readonly parameters: StatementParameters;
  /** The `WITH` parts that write the rows (see `BatchUnitOfWork.takeChanges`). */
  readonly changes: readonly string[];
}

const noop = (): void => undefined;

interface TargetState {
  readonly target: RunnerTarget;
  readonly leaseName: string;
  readonly matches: (event: RecordedEvent) => boolean;
  checkpointText: string | null;
  checkpoint: GlobalPosition | undefined;
  totalEvents: number;
}

const matcherOf = (projection: ProjectionDefinition): ((event: RecordedEvent) => boolean) => {
  const types = projection.eventTypes ? new Set(projection.eventTypes) : undefined;
  const prefixes = projection.streamPrefixes;
  return (event) =>
    (types === undefined || types.has(event.type)) &&
    (prefixes === undefined || prefixes.some((prefix) => event.stream.startsWith(prefix)));
};

/** The smallest filter that lets through every event any target wants (each target then picks its own). */
const unionFilter = (targets: readonly RunnerTarget[]): GlobalFilter => {
  const projections = targets.map((target) => target.projection);
  const everyTyped = projections.every((projection) => projection.eventTypes !== undefined);
  const everyPrefixed = projections.every((projection) => projection.streamPrefixes !== undefined);
  return {
    ...(everyTyped
      ? { eventTypes: [...new Set(projections.flatMap((projection) => projection.eventTypes ?? []))] }
      : {}),
    ...(everyPrefixed
      ? { streamPrefixes: [...new Set(projections.flatMap((projection) => projection.streamPrefixes ?? []))] }
      : {}),
  };
};

/**
 * Runs several projection versions over ONE read of the log (a rebuild of everything reads the log once): each
 * batch applies every target's share and moves every target's checkpoint (compare-and-set) in one transaction.
 * The runner leads only when it holds every target's lease. Targets may start from different checkpoints: each
 * skips what it has already applied.
 *
 * @example
 * const runner = startProjectionGroupRunner({ pool, store, targets, stopWhenCaughtUp: true });
 * await runner.done;
 */
export const startProjectionGroupRunner = (options: ProjectionGroupRunnerOptions): ProjectionRunner => {
  const { pool, store, targets } = options;
  if (targets.length === 0) throw new Error('a projection runner needs at least one target');
  const batchSize = options.batchSize ?? 2000;
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const leaseRetryMs = options.leaseRetryMs ?? 1000;
  const logger = options.logger ?? silentLogger;
  const leaseNames = targets.map((target) => `projection:${target.projection.name}:v${target.version}`);
  const label = leaseNames.join(', ');
  const filter = unionFilter(targets);
  const stopController = new AbortController();
  let state: RunnerState = 'starting';

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

  const isAfter = (position: GlobalPosition, checkpoint: GlobalPosition | undefined): boolean =>
    checkpoint === undefined || comparePositions(position, checkpoint) > 0;

  /**
   * Applies a batch in memory: each moving member's share of the events, its rows read from the session cache or,
   * once `previousWrite` has settled, from the database. The rows are handed to the cache at once, for the next
   * batch, and the changes are fixed as parts of the batch's statement.
   */
  const prepareBatch = async (
    client: PoolClient,
    batch: ReadAllBatch,
    next: GlobalPosition,
    states: readonly TargetState[],
    cache: RowCache,
    previousWrite: Promise<void>,
  ): Promise<PreparedBatch> => {
    const applied = new Map<TargetState, number>();
    const parameters = new StatementParameters();
    const changes: string[] = [];
    const readsAfter = previousWrite.then(noop, noop);
    // A member's checkpoint may still be the one before the batch being written: every event of this batch lies past
    // that batch's end, so the same members move and the same events are theirs.
    for (const member of states.filter((state) => isAfter(next, state.checkpoint))) {
      const { projection, version } = member.target;
      const events = batch.events.filter(
        (event) => member.matches(event) && isAfter(event.position, member.checkpoint),
      );
      applied.set(member, events.length);
      if (events.length === 0) continue;
      const work = new BatchUnitOfWork(client, version, cache, readsAfter);
      if (projection.reads) await work.prefetch(events.flatMap((event) => projection.reads?.(event) ?? []));
      for (const event of events) await projection.apply(work, event);
      changes.push(...work.takeChanges(parameters));
      work.publish();
    }
    return { batch, next, applied, parameters, changes };
  };

  /**
   * Writes a prepared batch with one statement, so one transaction: its rows, and its members' checkpoints moved by
   * compare-and-set (the statement fails when one was moved by another writer).
   */
  const writeBatch = async (client: PoolClient, prepared: PreparedBatch): Promise<void> => {
    const { batch, next, applied, parameters, changes } = prepared;
    const members = [...applied.keys()];
    if (members.length === 0) return;
    const nextText = formatPosition(next);
    const moved = `moved AS (
      UPDATE projection_checkpoints c SET position = ${parameters.add(nextText)}, updated_at = now()
        FROM unnest(${parameters.add(members.map((member) => member.target.projection.name))}::text[],
                    ${parameters.add(members.map((member) => member.target.version))}::integer[],
                    ${parameters.add(members.map((member) => member.checkpointText))}::text[])
             AS m(name, version, expected)
       WHERE c.name = m.name AND c.version = m.version AND c.position IS NOT DISTINCT FROM m.expected
      RETURNING 1)`;
    const text = `WITH ${[moved, ...changes].join(',\n')}
      SELECT projection_checkpoints_moved((SELECT count(*) FROM moved), ${parameters.add(members.length)})`;
    await options.faults?.beforeWrite?.({ events: batch.events, client });
    try {
      await client.query(text, parameters.values);
    } catch (error) {
      if ((error as { code?: unknown }).code === checkpointConflictCode)
        throw await conflictOf(client, members, error);
      throw error;
    }
    for (const [member, events] of applied) {
      member.checkpointText = nextText;
      member.checkpoint = next;
      member.totalEvents += events;
      options.onBatch?.({
        projection: member.target.projection.name,
        version: member.target.version,
        events,
        checkpoint: next,
        caughtUp: batch.caughtUp,
        totalEvents: member.totalEvents,
      });
    }
  };

  const loadStates = async (client: PoolClient): Promise<TargetState[]> => {
    const states: TargetState[] = [];
    for (const [index, target] of targets.entries()) {
      const { name } = target.projection;
      await client.query(
        'INSERT INTO projection_checkpoints (name, version, position) VALUES ($1, $2, NULL) ON CONFLICT DO NOTHING',
        [name, target.version],
      );
      const stored = await client.query<{ position: string | null }>(
        'SELECT position FROM projection_checkpoints WHERE name = $1 AND version = $2',
        [name, target.version],
      );
      const checkpointText = stored.rows[0]?.position ?? null;
      const checkpoint = checkpointText === null ? undefined : parsePosition(checkpointText);
      if (checkpointText !== null && !checkpoint)
        throw new Error(`${leaseNames[index]}: unreadable checkpoint ${checkpointText}`);
      states.push({
        target,
        leaseName: leaseNames[index] as string,
        matches: matcherOf(target.projection),
        checkpointText,
        checkpoint,
        totalEvents: 0,
      });
    }
    return states;
  };

  /** Applies batches while holding the leases; returns when stopped, or caught up with `stopWhenCaughtUp`. */
  const lead = async (client: PoolClient): Promise<void> => {
    const states = await loadStates(client);
    // The session's rows stay in memory while this runner is the only writer; empty tables need no lookups.
    const cache = new RowCache(options.rowCacheSize ?? 10_000);
    for (const { target } of states) {
      for (const table of target.projection.tables) {
        const physical = physicalTableName(table, target.version);
        const empty = await client.query<{ empty: boolean }>(
          `SELECT NOT EXISTS (SELECT 1 FROM "${physical}") AS empty`,
        );
        if (empty.rows[0]?.empty) cache.markEmpty(physical);
      }
    }
    // The group reads from the least advanced member; the others skip what they already have.
    const lowest = (): GlobalPosition | undefined =>
      states.some((member) => member.checkpoint === undefined)
        ? undefined
        : states
            .map((member) => member.checkpoint as GlobalPosition)
            .reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
    let position = lowest();
    let pending = read(position);
    // A batch is applied while the one before it is written: its statement is sent whole, so PostgreSQL writes it
    // while this process applies the next.
    let writing: Promise<void> = Promise.resolve();
    try {
      while (!stopController.signal.aborted) {
        const batch = await pending;
        const next = batch.checkpoint;
        if (next === undefined || !isAfter(next, position)) {
          await writing;
          if (batch.caughtUp && options.stopWhenCaughtUp) return;
          await abortableSleep(pollIntervalMs, stopController.signal);
          pending = read(position);
          continue;
        }
        if (!batch.caughtUp) pending = read(next);
        const prepared = await prepareBatch(client, batch, next, states, cache, writing);
        await writing;
        writing = writeBatch(client, prepared);
        // Awaited below; until then its failure is not unhandled.
        writing.catch(noop);
        position = next;
        if (batch.caughtUp) {
          await writing;
          if (options.stopWhenCaughtUp) return;
          await abortableSleep(pollIntervalMs, stopController.signal);
          pending = read(position);
        }
      }
      await writing;
    } catch (error) {
      // The connection goes back only once the batch in flight has ended.
      await writing.catch(noop);
      throw error;
    }
  };

  const run = async (): Promise<void> => {
    while (!stopController.signal.aborted) {
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        if (!isConnectionLoss(error)) throw error;
        logger.warn({ projection: label, err: error }, 'cannot reach the read-model database; retrying');
        await abortableSleep(leaseRetryMs, stopController.signal);
        continue;
      }
      const onConnectionError = (error: Error): void =>
        logger.warn({ projection: label, err: error }, 'lease connection failed');
      client.on('error', onConnectionError);
      let leading = false;
      let failure: unknown;
      try {
        leading = await waitForLease(client);
        if (!leading) return;
        setState('leading');
        logger.info({ projection: label }, 'took the projection lease');
        await lead(client);
        if (options.stopWhenCaughtUp) return;
      } catch (error) {
        failure = error;
        if (!isConnectionLoss(error) || stopController.signal.aborted) throw error;
        logger.warn({ projection: label, err: error }, 'lost the projection lease; back to standby');
      } finally {
        if (failure === undefined && leading) await unlockAll(client, leaseNames);
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
      const held: string[] = [];
      for (const name of leaseNames) {
        const result = await client.query<{ acquired: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS acquired',
          [name],
        );
        if (!result.rows[0]?.acquired) break;
        held.push(name);
      }
      if (held.length === leaseNames.length) return true;
      // All or nothing: a runner that holds some leases would block the one that holds the others.
      await unlockAll(client, held);
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

/** The error for a batch whose compare-and-set failed, naming a member whose checkpoint another writer moved. */
const conflictOf = async (
  client: PoolClient,
  members: readonly TargetState[],
  cause: unknown,
): Promise<CheckpointConflictError> => {
  const stored = await client.query<{ name: string; version: number; position: string | null }>(
    `SELECT c.name, c.version, c.position FROM projection_checkpoints c
       JOIN unnest($1::text[], $2::integer[]) AS m(name, version) ON c.name = m.name AND c.version = m.version`,
    [members.map((member) => member.target.projection.name), members.map((member) => member.target.version)],
  );
  const conflicted =
    members.find(
      (member) =>
        !stored.rows.some(
          (row) =>
            row.name === member.target.projection.name &&
            row.version === member.target.version &&
            row.position === member.checkpointText,
        ),
    ) ?? (members[0] as TargetState);
  return new CheckpointConflictError(
    conflicted.target.projection.name,
    conflicted.target.version,
    conflicted.checkpointText,
    { cause },
  );
};

const unlockAll = async (client: PoolClient, names: readonly string[]): Promise<void> => {
  for (const name of names) {
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [name]).catch(() => undefined);
  }
};

const connectionErrorCodes = new Set(['57P01', '57P02', '57P03', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED']);

/** True for errors that mean the lease connection is gone (so is the lease), not that a batch is wrong. */
const isConnectionLoss = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionErrorCodes.has(code) || code.startsWith('08'))) return true;
  return /Connection terminated|connection is closed|Client has encountered a connection error/i.test(
    error.message,
  );
};

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
