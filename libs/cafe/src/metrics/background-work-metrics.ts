import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ScavengerRound } from '@once/event-store/postgres';

/** What the background work tells its metrics: each round of retention this process led. */
export interface BackgroundWorkMetrics {
  /** A round of the stream scavenger (PostgreSQL streams). */
  scavengerRound(round: ScavengerRound): void;
  /** A scavenge this process started on the EventStoreDB server. */
  serverScavenge(startedAt: Date): void;
}

/**
 * The retention scavenger's metrics in `registry`: `once_scavenger_removed_streams_total`,
 * `once_scavenger_removed_events_total`, `once_scavenger_lag_seconds` and
 * `once_eventstore_last_scavenge_timestamp_seconds`; only the process that leads a round reports it.
 *
 * @example
 * const metrics = registerBackgroundWorkMetrics(registry);
 * await startBackgroundWork(env, { pool, store, secrets, logger, onScavengerRound: (round) => metrics.scavengerRound(round) });
 */
export const registerBackgroundWorkMetrics = (registry: Registry): BackgroundWorkMetrics => {
  const registers = [registry];
  const streams = new Counter({
    name: 'once_scavenger_removed_streams_total',
    help: 'Expired streams the scavenger removed whole',
    registers,
  });
  const events = new Counter({
    name: 'once_scavenger_removed_events_total',
    help: 'Events of expired streams the scavenger removed',
    registers,
  });
  const lag = new Gauge({
    name: 'once_scavenger_lag_seconds',
    help: 'In the last round, the longest time between a removed stream expiring and its removal',
    registers,
  });
  const lastServerScavenge = new Gauge({
    name: 'once_eventstore_last_scavenge_timestamp_seconds',
    help: 'When this process last started a scavenge on the EventStoreDB server (Unix time)',
    registers,
  });
  return {
    scavengerRound: (round) => {
      streams.inc(round.removedStreams);
      events.inc(round.removedEvents);
      lag.set(round.maxLagSeconds);
    },
    serverScavenge: (startedAt) => lastServerScavenge.set(startedAt.getTime() / 1000),
  };
};
