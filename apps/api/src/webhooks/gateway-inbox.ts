import type { EventStore, ExpectedRevision, GlobalPosition, StreamAppend } from '@once/event-store';
import { DomainError, asInvoiceId, asPaymentId, asTenantId, invoiceStream } from '@once/domain';
import { invoiceDecider } from '@once/domain/invoices';
import type { InvoiceEvent, RecordCardCharge } from '@once/domain/invoices';
import { deriveId } from '@once/idempotency';
import { receiveWebhookOnceInStore } from '@once/webhooks';
import { foldSnapshot } from '../commands/aggregate-command.js';
import type { GatewayEvent } from './webhook.schemas.js';

/** What became of one delivery. */
export type InboxOutcome =
  | { readonly kind: 'applied'; readonly events: number; readonly position: GlobalPosition }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'ignored'; readonly reason: string; readonly position?: GlobalPosition };

/** The inbox stream of one gateway event: its first append (at `no_stream`) is the claim. */
export const inboxStream = (eventId: string): string => `inbox-gateway-${eventId}`;

/**
 * Applies a gateway event exactly once through the webhook kit's event-store inbox: the claim
 * (`inbox-gateway-<eventId>` at `no_stream`) and the card outcome on the invoice are one atomic append, so a
 * redelivery finds the inbox taken and changes nothing. An outcome the invoice already has (the synchronous answer
 * came first) adds no invoice events; the claim is still recorded. Event ids derive from the event id, so two racing
 * deliveries write the same events once.
 *
 * @example
 * const outcome = await receiveGatewayEvent(store, event, new Date());
 */
export const receiveGatewayEvent = async (
  store: EventStore,
  event: GatewayEvent,
  now: Date,
): Promise<InboxOutcome> => {
  const { tenantId, invoiceId } = event.data.metadata ?? {};
  if (tenantId === undefined || invoiceId === undefined)
    return { kind: 'ignored', reason: 'no tenant or invoice metadata' };
  const scope = { tenantId, actorId: 'gateway-webhooks' };
  const inbox = inboxStream(event.id);
  const stream = invoiceStream(asTenantId(tenantId), asInvoiceId(invoiceId));
  const command: RecordCardCharge = {
    type: 'RecordCardCharge',
    data: {
      invoiceId: asInvoiceId(invoiceId),
      paymentId: asPaymentId(event.data.reference),
      gatewayReference: event.data.id,
      outcome:
        event.data.status === 'succeeded'
          ? { status: 'approved' }
          : { status: 'declined', reason: event.data.declineCode ?? 'declined' },
      recordedAt: now.toISOString(),
    },
  };

  const receipt = await receiveWebhookOnceInStore(store, {
    inboxStream: inbox,
    decide: async () => {
      const recorded = await store.readStream(stream);
      const revision: ExpectedRevision = recorded.at(-1)?.revision ?? 'no_stream';
      const state = foldSnapshot(invoiceDecider, { stream, events: recorded, revision });
      let events: readonly InvoiceEvent[] = [];
      let refusal: string | undefined;
      try {
        events = invoiceDecider.decide(command, state);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        refusal = error.code;
      }
      const claim = {
        id: deriveId(scope, event.id, inbox, 0),
        type: 'GatewayWebhookReceived',
        data: {
          eventId: event.id,
          type: event.type,
          paymentId: event.data.reference,
          refusal: refusal ?? null,
        },
      };
      const effects: StreamAppend[] =
        events.length === 0
          ? []
          : [
              {
                stream,
                expectedRevision: revision,
                events: events.map((domainEvent, index) => ({
                  id: deriveId(scope, event.id, stream, index),
                  ...domainEvent,
                })),
              },
            ];
      return { write: { claim, effects }, decision: { refusal, events: events.length } };
    },
  });
  if (receipt.outcome === 'duplicate') return { kind: 'duplicate' };
  const { refusal, events } = receipt.decision;
  const { position } = receipt;
  return refusal ? { kind: 'ignored', reason: refusal, position } : { kind: 'applied', events, position };
};
