import type { Pool } from 'pg';
import { removeExpiredStreams } from './expired-streams.js';
import { scheduleRounds } from '../retention/scheduled-rounds.js';

/** What one round of the scavenger did (a round walks batches until the end of the streams or its batch budget). */
export interface ScavengerRound {
  /** False when another process holds the scavenger's lock (it is the leader); nothing was done. */
  readonly led: boolean;
  readonly removedStreams: number;
  readonly removedEvents: number;
  /** The longest time between a removed stream's expiry and its removal, this round (seconds). */
  readonly maxLagSeconds: number;
}

export interface StreamScavengerOptions {
  readonly pool: Pool;
  /** Pause between rounds (ms). Default 10,000. */
  readonly intervalMs?: number;
  /** Streams looked at per batch (one statement, one short transaction). Default 500. */
  readonly batchSize?: number;
  /** Batches per round, at most; the walk resumes where it stopped next round. Default 20. */
  readonly batchesPerRound?: number;
  /** The store's clock (the one its events are recorded with); the database's `now()` when omitted. */
  readonly now?: () => Date;
  /** Told the streams each batch removed (for read models keyed by stream, e.g. the key table). */
  readonly onStreamsRemoved?: (streams: readonly string[]) => Promise<void>;
  /** Told each round that led (for metrics and logs). */
  readonly onRound?: (round: ScavengerRound) => void;
  readonly onError?: (error: unknown) => void;
}

export interface StreamScavenger {
  /** One round now (tests and operators); concurrent calls share the round in progress. */
  runRound(): Promise<ScavengerRound>;
  /** Stops the schedule and waits for the round in progress. */
  stop(): Promise<void>;
}

/** The advisory lock that makes one scavenger the leader among the processes sharing a database. */
export const scavengerLockKey = 0x0_5ca7_e46e;

/**
 * Removes expired streams on a schedule, in bounded batches, as the only scavenger among the processes sharing the
 * database (a session advisory lock per round: a crashed leader's lock goes with its connection).
 *
 * @example
 * const scavenger = startStreamScavenger({ pool, onRound: (round) => metrics.record(round) });
 * await scavenger.stop();
 */
export const startStreamScavenger = (options: StreamScavengerOptions): StreamScavenger => {
  const intervalMs = options.intervalMs ?? 10_000;
  const batchSize = options.batchSize ?? 500;
  const batchesPerRound = options.batchesPerRound ?? 20;
  let cursor: string | undefined;
  let stopped = false;

  const lead = async (): Promise<ScavengerRound> => {
    const client = await options.pool.connect();
    try {
      const { rows } = await client.query<{ led: boolean }>('SELECT pg_try_advisory_lock($1) AS led', [
        scavengerLockKey,
      ]);
      if (!rows[0]?.led) return { led: false, removedStreams: 0, removedEvents: 0, maxLagSeconds: 0 };
      try {
        let removedStreams = 0;
        let removedEvents = 0;
        let maxLagSeconds = 0;
        for (let batch = 0; batch < batchesPerRound && !stopped; batch++) {
          const result = await removeExpiredStreams(client, {
            ...(cursor === undefined ? {} : { after: cursor }),
            limit: batchSize,
            ...(options.now ? { now: options.now() } : {}),
          });
          if (result.removedStreams.length > 0) await options.onStreamsRemoved?.(result.removedStreams);
          removedStreams += result.removedStreams.length;
          removedEvents += result.removedEvents;
          maxLagSeconds = Math.max(maxLagSeconds, result.maxLagSeconds);
          cursor = result.cursor;
          if (cursor === undefined) break;
        }
        return { led: true, removedStreams, removedEvents, maxLagSeconds };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [scavengerLockKey]);
      }
    } finally {
      client.release();
    }
  };

  const rounds = scheduleRounds({
    intervalMs,
    round: async () => {
      const round = await lead();
      if (round.led) options.onRound?.(round);
      return round;
    },
    onError: options.onError,
  });

  return {
    runRound: rounds.runRound,
    stop: async () => {
      stopped = true;
      await rounds.stop();
    },
  };
};
