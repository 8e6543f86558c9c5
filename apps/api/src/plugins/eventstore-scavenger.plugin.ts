import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import { startServerScavenger } from '@once/event-store/eventstoredb';

export interface EventStoreScavengerPluginOptions {
  /** Time between scavenges on the EventStoreDB server (ms). */
  readonly intervalMs: number;
}

/**
 * Schedules scavenges on the EventStoreDB server beside the in-process projector (EventStoreDB streams only): one
 * process among those sharing the PostgreSQL database starts one every interval, and `/metrics` tells when the last
 * one started. `$maxAge` hides expired key streams at once; only a scavenge frees their disk.
 */
export const eventStoreScavengerPlugin = fp<EventStoreScavengerPluginOptions>(
  async (app, options) => {
    const lastStarted = new Gauge({
      name: 'once_eventstore_last_scavenge_timestamp_seconds',
      help: 'When this process last started a scavenge on the EventStoreDB server (Unix time)',
      registers: [app.metricsRegistry],
    });
    const scavenger = startServerScavenger({
      store: app.eventStore,
      pool: app.pg,
      intervalMs: options.intervalMs,
      onScavenge: (round) => {
        lastStarted.set(round.startedAt.getTime() / 1000);
        app.log.info({ scavengeId: round.scavengeId }, 'started a scavenge on EventStoreDB');
      },
      onError: (error) => app.log.warn({ err: error }, 'could not start a scavenge on EventStoreDB'),
    });
    app.addHook('onClose', async () => scavenger.stop());
  },
  {
    name: 'once-eventstore-scavenger',
    fastify: '5.x',
    dependencies: ['once-observability', 'once-postgres', 'once-event-store'],
  },
);
