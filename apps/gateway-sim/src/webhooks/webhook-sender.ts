import { setTimeout as sleep } from 'node:timers/promises';
import type { Charge } from '../charges/charge.js';
import { webhookHeaders } from '@once/webhooks';

/** A gateway event as delivered to the merchant's webhook endpoint. */
export interface GatewayEvent {
  readonly id: string;
  readonly type: 'charge.succeeded' | 'charge.declined';
  readonly createdAt: string;
  readonly data: Charge;
}

/** Delivers gateway events at least once, signed; `close` waits for deliveries in flight. */
export interface WebhookSender {
  chargeRecorded(charge: Charge): void;
  close(): Promise<void>;
}

export interface WebhookSenderOptions {
  readonly url: string;
  /** A Standard Webhooks secret (`whsec_…`). */
  readonly secret: string;
  readonly attempts?: number;
  readonly onError?: (error: unknown, event: GatewayEvent) => void;
}

/**
 * Sends one event per new charge to `url` with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), retrying with backoff. The event id is derived from the charge, so a redelivery
 * carries the same id and the receiver can de-duplicate.
 *
 * @example
 * const sender = createWebhookSender({ url: 'http://127.0.0.1:3000/webhooks/gateway', secret: 'whsec_…' });
 */
export const createWebhookSender = (options: WebhookSenderOptions): WebhookSender => {
  const inFlight = new Set<Promise<void>>();
  const stopping = new AbortController();

  const deliver = async (event: GatewayEvent): Promise<void> => {
    const body = JSON.stringify(event);
    for (let attempt = 0; attempt < (options.attempts ?? 5) && !stopping.signal.aborted; attempt++) {
      const timestamp = Math.floor(Date.now() / 1000);
      try {
        const response = await fetch(options.url, {
          method: 'POST',
          body,
          signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(5_000)]),
          headers: {
            'content-type': 'application/json',
            ...webhookHeaders([options.secret], { id: event.id, timestamp, body }),
          },
        });
        await response.body?.cancel();
        if (response.ok) return;
      } catch (error) {
        if (stopping.signal.aborted) return;
        options.onError?.(error, event);
      }
      await sleep(100 * 2 ** attempt, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  };

  return {
    chargeRecorded: (charge) => {
      const event: GatewayEvent = {
        id: `evt_${charge.id}`,
        type: charge.status === 'succeeded' ? 'charge.succeeded' : 'charge.declined',
        createdAt: charge.createdAt,
        data: charge,
      };
      const delivery = deliver(event).finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    },
    close: async () => {
      stopping.abort();
      await Promise.all(inFlight);
    },
  };
};
