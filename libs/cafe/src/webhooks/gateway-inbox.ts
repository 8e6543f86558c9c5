import type { EventStore, ExpectedRevision, GlobalPosition, StreamAppend } from '@once/event-store';
import { asInvoiceId, asPaymentId, asTenantId, cardSettlementStream, invoiceStream } from '@once/domain';
import type { SettlementRetryPolicy } from '@once/domain/card-settlements';
import { invoiceDecider } from '@once/domain/invoices';
import { deriveId } from '@once/idempotency';
import { receiveWebhookOnceInStore } from '@once/webhooks';
import { foldSnapshot } from '../commands/aggregate-command.js';
import { decideCardPayment, foldCardPayment } from '../invoices/card-payment-workflow.js';
import type { GatewayEvent } from './webhook.schemas.js';

/** What became of one delivery. */
export type InboxOutcome =
  | { readonly kind: 'applied'; readonly events: number; readonly position: GlobalPosition }
  | { readonly kind: 'mismatched'; readonly position: GlobalPosition }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'ignored'; readonly reason: string; readonly position?: GlobalPosition };

/** What the inbox needs besides the event. */
export interface GatewayInboxOptions {
  readonly now: Date;
  /** The policy of a settlement the inbox starts to flag a mismatched charge. */
  readonly retryPolicy: SettlementRetryPolicy;
}

/** The inbox stream of one gateway event: its first append (at `no_stream`) is the claim. */
export const inboxStream = (eventId: string): string => `inbox-gateway-${eventId}`;

/**
 * Applies a gateway event exactly once through the webhook kit's event-store inbox: the claim
 * (`inbox-gateway-<eventId>` at `no_stream`) and what the domain's card payment workflow decides for the charge
 * (`ReceiveGatewayCharge`: the outcome on the invoice and on the payment's settlement) are one atomic append, so a
 * redelivery finds the inbox taken and changes nothing. A charge whose amount or currency is not the reserved
 * payment's is not applied: `GatewayChargeMismatched` on the payment's settlement records both amounts and the
 * payment needs an operator. An outcome the payment already has (the synchronous answer came first) adds no events;
 * the claim is still recorded, and a refusal is recorded on it. Event ids derive from the event id, so two racing
 * deliveries write the same events once.
 *
 * @example
 * const outcome = await receiveGatewayEvent(store, event, { now: new Date(), retryPolicy });
 */
export const receiveGatewayEvent = async (
  store: EventStore,
  event: GatewayEvent,
  options: GatewayInboxOptions,
): Promise<InboxOutcome> => {
  const { tenantId, invoiceId } = event.data.metadata ?? {};
  if (tenantId === undefined || invoiceId === undefined)
    return { kind: 'ignored', reason: 'no tenant or invoice metadata' };
  const scope = { tenantId, actorId: 'gateway-webhooks' };
  const inbox = inboxStream(event.id);
  const paymentId = asPaymentId(event.data.reference);
  const invoice = invoiceStream(asTenantId(tenantId), asInvoiceId(invoiceId));
  const settlement = cardSettlementStream(asTenantId(tenantId), paymentId);
  const read = async (stream: string) => {
    const events = await store.readStream(stream);
    const revision: ExpectedRevision = events.at(-1)?.revision ?? 'no_stream';
    return { stream, events, revision };
  };
  const append = (
    { stream, revision }: { stream: string; revision: ExpectedRevision },
    events: readonly { type: string; data: unknown }[],
  ): StreamAppend[] =>
    events.length === 0
      ? []
      : [
          {
            stream,
            expectedRevision: revision,
            events: events.map(({ type, data }, index) => ({
              id: deriveId(scope, event.id, stream, index),
              type,
              data,
            })),
          },
        ];

  const receipt = await receiveWebhookOnceInStore(store, {
    inboxStream: inbox,
    decide: async () => {
      const [invoiceRead, settlementRead] = await Promise.all([read(invoice), read(settlement)]);
      const decided = decideCardPayment(
        {
          type: 'ReceiveGatewayCharge',
          data: {
            invoiceId: asInvoiceId(invoiceId),
            paymentId,
            charge: {
              gatewayReference: event.data.id,
              status: event.data.status,
              declineCode: event.data.declineCode,
              amount: event.data.amount,
              currency: event.data.currency,
            },
            policy: options.retryPolicy,
            at: options.now.toISOString(),
          },
        },
        foldCardPayment(paymentId, invoiceRead.events, settlementRead.events),
        foldSnapshot(invoiceDecider, invoiceRead),
      );
      const refusal = decided.ok ? undefined : decided.error.code;
      const settlementEvents = decided.ok ? decided.value.settlementEvents : [];
      const invoiceEvents = decided.ok ? decided.value.invoiceEvents : [];
      const mismatched = settlementEvents.some(
        (decidedEvent) => decidedEvent.type === 'GatewayChargeMismatched',
      );
      const claim = {
        id: deriveId(scope, event.id, inbox, 0),
        type: 'GatewayWebhookReceived',
        data: {
          eventId: event.id,
          type: event.type,
          paymentId: event.data.reference,
          charged: { amount: event.data.amount, currency: event.data.currency },
          mismatched,
          refusal: refusal ?? null,
        },
      };
      return {
        write: {
          claim,
          effects: [...append(settlementRead, settlementEvents), ...append(invoiceRead, invoiceEvents)],
        },
        decision: { refusal, mismatched, events: invoiceEvents.length + settlementEvents.length },
      };
    },
  });
  if (receipt.outcome === 'duplicate') return { kind: 'duplicate' };
  const { refusal, mismatched, events } = receipt.decision;
  const { position } = receipt;
  if (refusal) return { kind: 'ignored', reason: refusal, position };
  return mismatched ? { kind: 'mismatched', position } : { kind: 'applied', events, position };
};
