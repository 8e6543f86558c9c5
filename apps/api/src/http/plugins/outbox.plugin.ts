import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import { migrateOutbox, webhookDeliveryMetrics } from '@once/outbox';

/**
 * The outbox's tables and metrics (`webhook_attempts{outcome}`, `webhook_retry_backlog`,
 * `webhook_oldest_undelivered_seconds`, `webhook_held_messages`, read from the delivery state so they hold wherever the relay runs: on the
 * projector's thread (`projector.plugin.ts`) or in apps/projector.
 */
export const outboxPlugin = fp(
  async (app) => {
    await migrateOutbox(app.pg);
    const registers = [app.metricsRegistry];
    new Gauge({
      name: 'webhook_attempts',
      help: 'Webhook delivery attempts by outcome (delivered, failed, dead) since the outbox was created',
      labelNames: ['outcome'] as const,
      registers,
      async collect() {
        const { attemptsByOutcome } = await webhookDeliveryMetrics(app.pg);
        for (const [outcome, count] of Object.entries(attemptsByOutcome)) this.set({ outcome }, count);
      },
    });
    new Gauge({
      name: 'webhook_retry_backlog',
      help: 'Webhook messages waiting for a retry after a failed attempt',
      registers,
      async collect() {
        this.set((await webhookDeliveryMetrics(app.pg)).retryBacklog);
      },
    });
    new Gauge({
      name: 'webhook_held_messages',
      help: 'Webhook messages held for disabled endpoints, delivered once they are enabled again',
      registers,
      async collect() {
        this.set((await webhookDeliveryMetrics(app.pg)).held);
      },
    });
    new Gauge({
      name: 'webhook_oldest_undelivered_seconds',
      help: 'Age of the oldest webhook message not delivered yet (0 when none)',
      registers,
      async collect() {
        this.set((await webhookDeliveryMetrics(app.pg)).oldestUndeliveredSeconds);
      },
    });
  },
  { name: 'once-outbox', fastify: '5.x', dependencies: ['once-event-store', 'once-observability'] },
);
