import type { EventStore, ExpectedRevision, GlobalPosition, StreamAppend } from '@once/event-store';
import {
  DomainError,
  asInvoiceId,
  asPaymentId,
  asTenantId,
  cardSettlementStream,
  invoiceStream,
  money,
} from '@once/domain';
import { cardSettlementDecider } from '@once/domain/card-settlements';
import type {
  CardSettlementCommand,
  CheckGatewayCharge,
  SettlementRetryPolicy,
} from '@once/domain/card-settlements';
import { invoiceDecider } from '@once/domain/invoices';
import type { InvoiceEvent, InvoiceState, RecordCardCharge } from '@once/domain/invoices';
import { deriveId } from '@once/idempotency';
import type { IdempotencyScope } from '@once/idempotency';
import { receiveWebhookOnceInStore } from '@once/webhooks';
import { foldSnapshot } from '../commands/aggregate-command.js';
import { decideSettlement } from '../invoices/card-settlement.js';
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
 * The settlement events that flag a charge whose amount or currency is not the reserved payment's (starting the
 * payment's settlement when it has none), or nothing when the charge matches or the payment is no longer reserved.
 */
const flagMismatchedCharge = async (
  store: EventStore,
  invoice: InvoiceState,
  event: GatewayEvent,
  scope: IdempotencyScope,
  options: GatewayInboxOptions,
): Promise<StreamAppend | undefined> => {
  if (invoice.status === 'none') return undefined;
  const paymentId = asPaymentId(event.data.reference);
  const payment = invoice.payments.get(paymentId);
  if (payment?.status !== 'reserved') return undefined;
  const stream = cardSettlementStream(invoice.tenantId, paymentId);
  const recorded = await store.readStream(stream);
  const revision: ExpectedRevision = recorded.at(-1)?.revision ?? 'no_stream';
  const settlement = foldSnapshot(cardSettlementDecider, { stream, events: recorded, revision });
  const at = options.now.toISOString();
  const check: CheckGatewayCharge = {
    type: 'CheckGatewayCharge',
    data: {
      paymentId,
      gatewayReference: event.data.id,
      charged: { amount: event.data.amount, currency: event.data.currency },
      checkedAt: at,
    },
  };
  const start: CardSettlementCommand = {
    type: 'StartCardSettlement',
    data: {
      tenantId: invoice.tenantId,
      invoiceId: invoice.invoiceId,
      paymentId,
      amount: money(payment.amount, invoice.total.currency),
      policy: options.retryPolicy,
      startedAt: at,
    },
  };
  const { events } = decideSettlement(settlement, settlement.status === 'none' ? [start, check] : [check]);
  if (!events.some((decided) => decided.type === 'GatewayChargeMismatched')) return undefined;
  return {
    stream,
    expectedRevision: revision,
    events: events.map((decided, index) => ({ id: deriveId(scope, event.id, stream, index), ...decided })),
  };
};

/**
 * Applies a gateway event exactly once through the webhook kit's event-store inbox: the claim
 * (`inbox-gateway-<eventId>` at `no_stream`) and the card outcome on the invoice are one atomic append, so a
 * redelivery finds the inbox taken and changes nothing. A charge whose amount or currency is not the reserved
 * payment's is not applied: `GatewayChargeMismatched` on the payment's settlement records both amounts and the
 * payment needs an operator. An outcome the invoice already has (the synchronous answer came first) adds no invoice
 * events; the claim is still recorded. Event ids derive from the event id, so two racing deliveries write the same
 * events once.
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
      recordedAt: options.now.toISOString(),
    },
  };

  const receipt = await receiveWebhookOnceInStore(store, {
    inboxStream: inbox,
    decide: async () => {
      const recorded = await store.readStream(stream);
      const revision: ExpectedRevision = recorded.at(-1)?.revision ?? 'no_stream';
      const state = foldSnapshot(invoiceDecider, { stream, events: recorded, revision });
      let events: readonly InvoiceEvent[] = [];
      let mismatch: StreamAppend | undefined;
      let refusal: string | undefined;
      try {
        mismatch = await flagMismatchedCharge(store, state, event, scope, options);
        if (mismatch === undefined) events = invoiceDecider.decide(command, state);
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
          charged: { amount: event.data.amount, currency: event.data.currency },
          mismatched: mismatch !== undefined,
          refusal: refusal ?? null,
        },
      };
      const effects: StreamAppend[] = mismatch ? [mismatch] : [];
      if (events.length > 0) {
        effects.push({
          stream,
          expectedRevision: revision,
          events: events.map((domainEvent, index) => ({
            id: deriveId(scope, event.id, stream, index),
            ...domainEvent,
          })),
        });
      }
      return {
        write: { claim, effects },
        decision: { refusal, mismatched: mismatch !== undefined, events: events.length },
      };
    },
  });
  if (receipt.outcome === 'duplicate') return { kind: 'duplicate' };
  const { refusal, mismatched, events } = receipt.decision;
  const { position } = receipt;
  if (refusal) return { kind: 'ignored', reason: refusal, position };
  return mismatched ? { kind: 'mismatched', position } : { kind: 'applied', events, position };
};
