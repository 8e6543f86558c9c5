import fp from 'fastify-plugin';
import { registerWebhookDeliveryMetrics } from '@once/cafe';
import { migrateOutbox } from '@once/outbox';

/**
 * The outbox's tables and metrics (`once_webhook_attempts_total{outcome}`, `once_webhook_retry_backlog`,
 * `once_webhook_oldest_undelivered_seconds`, `once_webhook_held_messages`), read from the delivery state so they hold
 * wherever the relay runs: on the projector's thread (`projector.plugin.ts`) or in apps/projector.
 */
export const outboxPlugin = fp(
  async (app) => {
    await migrateOutbox(app.pg);
    registerWebhookDeliveryMetrics(app.metricsRegistry, app.pg);
  },
  { name: 'once-outbox', fastify: '5.x', dependencies: ['once-event-store', 'once-observability'] },
);
