import type { Pool } from 'pg';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { webhookDeliveryMetrics } from '@once/outbox';

/**
 * The webhook deliveries' metrics in `registry`, read from the delivery state at each scrape, so they hold wherever
 * the relay runs (every process reports the same): `once_webhook_attempts_total{outcome}` (delivered, failed, dead;
 * pruned attempts still counted), `once_webhook_retry_backlog`, `once_webhook_held_messages`,
 * `once_webhook_oldest_undelivered_seconds`.
 *
 * @example
 * registerWebhookDeliveryMetrics(registry, pool);
 */
export const registerWebhookDeliveryMetrics = (registry: Registry, pool: Pool): void => {
  const registers = [registry];
  new Counter({
    name: 'once_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (delivered, failed, dead) since the outbox was created',
    labelNames: ['outcome'] as const,
    registers,
    async collect() {
      const { attemptsByOutcome } = await webhookDeliveryMetrics(pool);
      // The totals are the database's, never this process's: each scrape reports them as they stand.
      this.reset();
      for (const [outcome, count] of Object.entries(attemptsByOutcome)) this.inc({ outcome }, count);
    },
  });
  new Gauge({
    name: 'once_webhook_retry_backlog',
    help: 'Webhook messages waiting for a retry after a failed attempt',
    registers,
    async collect() {
      this.set((await webhookDeliveryMetrics(pool)).retryBacklog);
    },
  });
  new Gauge({
    name: 'once_webhook_held_messages',
    help: 'Webhook messages held for disabled endpoints, delivered once they are enabled again',
    registers,
    async collect() {
      this.set((await webhookDeliveryMetrics(pool)).held);
    },
  });
  new Gauge({
    name: 'once_webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest webhook message not delivered yet (0 when none)',
    registers,
    async collect() {
      this.set((await webhookDeliveryMetrics(pool)).oldestUndeliveredSeconds);
    },
  });
};
