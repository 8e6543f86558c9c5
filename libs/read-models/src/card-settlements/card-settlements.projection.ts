import type { RecordedEvent } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import { streamPrefixes } from '@once/domain';
import { chargeMismatchReason } from '@once/domain/card-payments';
import type { CardSettlementEvent } from '@once/domain/card-settlements';
import type { CardPaymentCaptured, CardPaymentDeclined } from '@once/domain/invoices';
import { defineTable, rowRef } from '@once/projections';
import type { ProjectionDefinition } from '@once/projections';

/** Where a card payment whose outcome was once unknown stands. */
export type CardSettlementStatus = 'settling' | 'needs-attention' | 'settled';

export type CardSettlementRow = {
  tenant_id: string;
  payment_id: string;
  invoice_id: string;
  amount: number;
  currency: string;
  status: CardSettlementStatus;
  /** Attempts (charge or inquiry) whose outcome was unknown. */
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  /** When the completer gave up and a person must look. */
  flagged_at: string | null;
  /** `approved` or `declined` once settled. */
  outcome: string | null;
  /** What the gateway reported charging when it was not the reservation (`GatewayChargeMismatched`). */
  charged_amount: number | null;
  charged_currency: string | null;
  last_position: string;
};

export const cardSettlementsTable = defineTable<CardSettlementRow>({
  name: 'card_settlements',
  columns: {
    tenant_id: { type: 'text' },
    payment_id: { type: 'text' },
    invoice_id: { type: 'text' },
    amount: { type: 'bigint' },
    currency: { type: 'text' },
    status: { type: 'text' },
    attempts: { type: 'integer' },
    last_error: { type: 'text', nullable: true },
    next_attempt_at: { type: 'timestamptz', nullable: true },
    flagged_at: { type: 'timestamptz', nullable: true },
    outcome: { type: 'text', nullable: true },
    charged_amount: { type: 'bigint', nullable: true },
    charged_currency: { type: 'text', nullable: true },
    last_position: { type: 'text' },
  },
  // Payment ids are unique across tenants (derived from the tenant's key scope); later events name only the payment.
  primaryKey: ['payment_id'],
  indexes: [['tenant_id', 'status']],
});

type Projected = CardSettlementEvent | CardPaymentCaptured | CardPaymentDeclined;

const projectedTypes: readonly Projected['type'][] = [
  'CardSettlementStarted',
  'CardSettlementAttemptFailed',
  'CardSettlementNeedsAttention',
  'CardSettlementSettled',
  'GatewayChargeMismatched',
  'CardPaymentCaptured',
  'CardPaymentDeclined',
];

/**
 * Card payments whose gateway outcome was once unknown, over the `card-settlement-` streams: their attempts, whether
 * they need an operator, and how they ended. The invoice's capture or decline settles a row too (the gateway's
 * webhook records the outcome on the invoice alone); invoice events of payments without a settlement add nothing. A
 * charge the gateway reported with another amount or currency needs attention, with what it charged.
 */
export const cardSettlementsProjection: ProjectionDefinition = {
  name: 'card_settlements',
  version: 2,
  eventTypes: projectedTypes,
  streamPrefixes: [streamPrefixes.cardSettlement, streamPrefixes.invoice],
  tables: [cardSettlementsTable],
  reads: (recorded) => [
    rowRef(cardSettlementsTable, { payment_id: (recorded.data as { paymentId: string }).paymentId }),
  ],
  apply: async (tx, recorded) => {
    const event = recorded as RecordedEvent & Projected;
    const last_position = formatPosition(recorded.position);
    const key = { payment_id: event.data.paymentId };
    if (event.type === 'CardSettlementStarted') {
      const { data } = event;
      tx.put(cardSettlementsTable, {
        ...key,
        tenant_id: data.tenantId,
        invoice_id: data.invoiceId,
        amount: data.amount.amount,
        currency: data.amount.currency,
        status: 'settling',
        attempts: 0,
        last_error: null,
        next_attempt_at: null,
        flagged_at: null,
        outcome: null,
        charged_amount: null,
        charged_currency: null,
        last_position,
      });
      return;
    }
    const row = await tx.get(cardSettlementsTable, key);
    if (!row) return;
    switch (event.type) {
      case 'CardSettlementAttemptFailed':
        tx.put(cardSettlementsTable, {
          ...row,
          attempts: event.data.attempt,
          last_error: event.data.error,
          next_attempt_at: event.data.nextAttemptAt ?? null,
          last_position,
        });
        return;
      case 'CardSettlementNeedsAttention':
        tx.put(cardSettlementsTable, {
          ...row,
          status: 'needs-attention',
          last_error: event.data.lastError,
          next_attempt_at: null,
          flagged_at: event.data.flaggedAt,
          last_position,
        });
        return;
      case 'CardSettlementSettled':
        tx.put(cardSettlementsTable, {
          ...row,
          status: 'settled',
          outcome: event.data.outcome.status,
          last_position,
        });
        return;
      case 'GatewayChargeMismatched':
        tx.put(cardSettlementsTable, {
          ...row,
          status: 'needs-attention',
          last_error: chargeMismatchReason(event),
          next_attempt_at: null,
          flagged_at: event.data.detectedAt,
          charged_amount: event.data.charged.amount,
          charged_currency: event.data.charged.currency,
          last_position,
        });
        return;
      case 'CardPaymentCaptured':
      case 'CardPaymentDeclined':
        tx.put(cardSettlementsTable, {
          ...row,
          status: 'settled',
          outcome: event.type === 'CardPaymentCaptured' ? 'approved' : 'declined',
          next_attempt_at: null,
          last_position,
        });
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  },
};
