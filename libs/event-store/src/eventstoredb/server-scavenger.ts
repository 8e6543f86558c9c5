import type { Pool, PoolClient } from 'pg';
import type { EventStore } from '../port/index.js';
import { scheduleRounds } from '../retention/scheduled-rounds.js';

/** What one tick of the scavenge schedule did. */
export type ServerScavengeRound =
  { readonly led: false } | { readonly led: true; readonly scavengeId: string; readonly startedAt: Date };

export interface ServerScavengerOptions {
  /** The EventStoreDB store: its `scavenge` starts a scavenge on the server. */
  readonly store: Pick<EventStore, 'scavenge'>;
  /** The PostgreSQL database the processes share: its advisory lock elects the one that schedules scavenges. */
  readonly pool: Pool;
  /** Time between scavenges (ms); the first comes one interval after the start, so restarts never pile them up. */
  readonly intervalMs: number;
  readonly now?: () => Date;
  /** Told each scavenge the leader started (for metrics and logs). */
  readonly onScavenge?: (round: Extract<ServerScavengeRound, { led: true }>) => void;
  readonly onError?: (error: unknown) => void;
}

export interface ServerScavenger {
  /** One tick now (tests and operators): starts a scavenge if this process leads, else does nothing. */
  runRound(): Promise<ServerScavengeRound>;
  /** Stops the schedule, waits for the tick in progress and gives the leadership back. */
  stop(): Promise<void>;
}

/** The advisory lock that makes one process the scheduler of EventStoreDB scavenges among those sharing a database. */
export const serverScavengerLockKey = 0x0_5ca7_e5db;

/**
 * Starts a scavenge on the EventStoreDB server every `intervalMs`, from one process only: the one holding a session
 * advisory lock in the shared PostgreSQL database, which it keeps, on a connection of its own, until it stops or
 * that connection breaks (another process then takes over at its next tick). A scavenge is what turns `$maxAge` and
 * `$tb` into freed disk: the server hides expired events from stream reads at once but removes them only then.
 *
 * @example
 * const scavenger = startServerScavenger({ store, pool, intervalMs: 86_400_000, onScavenge: (round) => gauge.set(round.startedAt.getTime() / 1000) });
 * await scavenger.stop();
 */
export const startServerScavenger = (options: ServerScavengerOptions): ServerScavenger => {
  const now = options.now ?? (() => new Date());
  let leading: { readonly client: PoolClient; readonly onError: () => void } | undefined;
  let stopped = false;

  const giveUp = (broken: boolean): void => {
    const held = leading;
    if (held === undefined) return;
    leading = undefined;
    held.client.off('error', held.onError);
    held.client.release(broken);
  };

  /** True while this process holds the lock: its session is alive (checked each tick), or it just took the lock. */
  const lead = async (): Promise<boolean> => {
    if (leading) {
      try {
        await leading.client.query('SELECT 1');
        return true;
      } catch {
        giveUp(true);
      }
    }
    const client = await options.pool.connect();
    try {
      const { rows } = await client.query<{ led: boolean }>('SELECT pg_try_advisory_lock($1) AS led', [
        serverScavengerLockKey,
      ]);
      if (rows[0]?.led !== true) {
        client.release();
        return false;
      }
    } catch (error) {
      client.release(true);
      throw error;
    }
    // A broken leader connection loses the lock with it: the next tick competes for it again.
    const onError = () => giveUp(true);
    client.on('error', onError);
    leading = { client, onError };
    return true;
  };

  const tick = async (): Promise<ServerScavengeRound> => {
    if (stopped || !(await lead())) return { led: false };
    const startedAt = now();
    const { serverScavengeId } = await options.store.scavenge();
    if (serverScavengeId === undefined) throw new TypeError('the store started no scavenge on a server');
    const round = { led: true as const, scavengeId: serverScavengeId, startedAt };
    options.onScavenge?.(round);
    return round;
  };

  const rounds = scheduleRounds({ intervalMs: options.intervalMs, round: tick, onError: options.onError });

  return {
    runRound: rounds.runRound,
    stop: async () => {
      stopped = true;
      await rounds.stop();
      if (leading === undefined) return;
      try {
        await leading.client.query('SELECT pg_advisory_unlock($1)', [serverScavengerLockKey]);
        giveUp(false);
      } catch {
        giveUp(true);
      }
    },
  };
};
