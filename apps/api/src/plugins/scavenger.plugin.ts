import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';
import { startStreamScavenger } from '@once/event-store/postgres';
import type { ScavengerRound } from '@once/event-store/postgres';
import { removeKeyRowsOfStreams } from '@once/read-models';

export interface ScavengerPluginOptions {
  /** Pause between rounds (ms). */
  readonly intervalMs?: number;
  /** Streams looked at per batch. */
  readonly batchSize?: number;
}

/**
 * Runs the stream scavenger beside the in-process projector (PostgreSQL streams only): expired key streams are
 * removed whole, with their key-table rows, and counted in `/metrics`.
 */
export const scavengerPlugin = fp<ScavengerPluginOptions>(
  async (app, options) => {
    const streams = new Counter({
      name: 'once_scavenger_removed_streams_total',
      help: 'Expired streams the scavenger removed whole',
      registers: [app.metricsRegistry],
    });
    const events = new Counter({
      name: 'once_scavenger_removed_events_total',
      help: 'Events of expired streams the scavenger removed',
      registers: [app.metricsRegistry],
    });
    const lag = new Gauge({
      name: 'once_scavenger_lag_seconds',
      help: 'In the last round, the longest time between a removed stream expiring and its removal',
      registers: [app.metricsRegistry],
    });
    const record = (round: ScavengerRound): void => {
      streams.inc(round.removedStreams);
      events.inc(round.removedEvents);
      lag.set(round.maxLagSeconds);
    };
    const scavenger = startStreamScavenger({
      pool: app.pg,
      ...options,
      onStreamsRemoved: async (removed) => {
        await removeKeyRowsOfStreams(app.pg, removed);
      },
      onRound: record,
      onError: (error) => app.log.warn({ err: error }, 'scavenger round failed'),
    });
    app.addHook('onClose', async () => scavenger.stop());
  },
  { name: 'once-scavenger', fastify: '5.x', dependencies: ['once-observability', 'once-postgres'] },
);
