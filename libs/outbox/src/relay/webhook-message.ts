import type { RecordedEvent } from '@once/event-store';

/** A domain event as a webhook body: Standard Webhooks' `{ type, timestamp, data }` plus the stream it belongs to. */
export interface WebhookMessageBody {
  readonly type: string;
  readonly timestamp: string;
  readonly stream: string;
  readonly data: unknown;
}

/**
 * The body of an event's webhook, fixed when it is enqueued so every redelivery carries the same bytes; its
 * `webhook-id` is the event's id.
 *
 * @example
 * const body = webhookMessageBody(event); // '{"type":"OrderPlaced","timestamp":"…","stream":"order-…","data":{…}}'
 */
export const webhookMessageBody = (event: RecordedEvent): string =>
  JSON.stringify({
    type: event.type,
    timestamp: event.recordedAt.toISOString(),
    stream: event.stream,
    data: event.data,
  } satisfies WebhookMessageBody);

/** The tenant an event belongs to: every deliverable domain event carries `data.tenantId`. */
export const tenantOf = (event: RecordedEvent): string | undefined => {
  const data = event.data as { tenantId?: unknown } | null;
  return typeof data?.tenantId === 'string' ? data.tenantId : undefined;
};
