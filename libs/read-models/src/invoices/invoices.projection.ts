import type { RecordedEvent } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import { streamPrefixes } from '@once/domain';
import type { InvoiceEvent } from '@once/domain/invoices';
import { defineTable, rowRef } from '@once/projections';
import type { ProjectionDefinition, RowRef } from '@once/projections';

export type InvoiceRow = {
  tenant_id: string;
  invoice_id: string;
  customer_ref: string;
  currency: string;
  total: number;
  paid: number;
  reserved: number;
  /** total − paid − reserved: what can still be paid. */
  outstanding: number;
  status: 'open' | 'paid';
  lines: readonly unknown[];
  issued_at: string;
  last_position: string;
};

export type PaymentRow = {
  tenant_id: string;
  payment_id: string;
  invoice_id: string;
  status: 'recorded' | 'reserved' | 'captured' | 'declined';
  method: 'cash' | 'card';
  amount: number;
  currency: string;
  gateway_reference: string | null;
  decline_reason: string | null;
  /** Where the payment first appeared in the log: the order an invoice lists its payments in. */
  created_position: string;
  last_position: string;
};

export const invoicesTable = defineTable<InvoiceRow>({
  name: 'invoices',
  columns: {
    tenant_id: { type: 'text' },
    invoice_id: { type: 'text' },
    customer_ref: { type: 'text' },
    currency: { type: 'text' },
    total: { type: 'bigint' },
    paid: { type: 'bigint' },
    reserved: { type: 'bigint' },
    outstanding: { type: 'bigint' },
    status: { type: 'text' },
    lines: { type: 'jsonb' },
    issued_at: { type: 'timestamptz' },
    last_position: { type: 'text' },
  },
  primaryKey: ['tenant_id', 'invoice_id'],
});

export const paymentsTable = defineTable<PaymentRow>({
  name: 'payments',
  columns: {
    tenant_id: { type: 'text' },
    payment_id: { type: 'text' },
    invoice_id: { type: 'text' },
    status: { type: 'text' },
    method: { type: 'text' },
    amount: { type: 'bigint' },
    currency: { type: 'text' },
    gateway_reference: { type: 'text', nullable: true },
    decline_reason: { type: 'text', nullable: true },
    created_position: { type: 'text' },
    last_position: { type: 'text' },
  },
  primaryKey: ['tenant_id', 'payment_id'],
  indexes: [['tenant_id', 'invoice_id', 'created_position']],
});

const invoiceEventTypes: readonly InvoiceEvent['type'][] = [
  'InvoiceIssued',
  'PaymentRecorded',
  'CardPaymentReserved',
  'CardPaymentCaptured',
  'CardPaymentDeclined',
];

const statusOf = (total: number, paid: number): InvoiceRow['status'] => (paid >= total ? 'paid' : 'open');

const withMoney = (invoice: InvoiceRow, paid: number, reserved: number, position: string): InvoiceRow => ({
  ...invoice,
  paid,
  reserved,
  outstanding: invoice.total - paid - reserved,
  status: statusOf(invoice.total, paid),
  last_position: position,
});

/** Invoices with their totals, and their payments, over the `invoice-` streams; mirrors the invoice decider's fold. */
export const invoicesProjection: ProjectionDefinition = {
  name: 'invoices',
  version: 1,
  eventTypes: invoiceEventTypes,
  streamPrefixes: [streamPrefixes.invoice],
  tables: [invoicesTable, paymentsTable],
  reads: (recorded) => {
    const event = recorded as RecordedEvent & InvoiceEvent;
    const refs: RowRef[] = [
      rowRef(invoicesTable, { tenant_id: event.data.tenantId, invoice_id: event.data.invoiceId }),
    ];
    if (event.type !== 'InvoiceIssued') {
      refs.push(rowRef(paymentsTable, { tenant_id: event.data.tenantId, payment_id: event.data.paymentId }));
    }
    return refs;
  },
  apply: async (tx, recorded) => {
    const event = recorded as RecordedEvent & InvoiceEvent;
    const position = formatPosition(recorded.position);
    const key = { tenant_id: event.data.tenantId, invoice_id: event.data.invoiceId };
    if (event.type === 'InvoiceIssued') {
      const { data } = event;
      tx.put(invoicesTable, {
        ...key,
        customer_ref: data.customerRef,
        currency: data.total.currency,
        total: data.total.amount,
        paid: 0,
        reserved: 0,
        outstanding: data.total.amount,
        status: statusOf(data.total.amount, 0),
        lines: data.lines,
        issued_at: data.issuedAt,
        last_position: position,
      });
      return;
    }
    const invoice = await tx.get(invoicesTable, key);
    // As in the decider: a payment event before its invoice changes nothing.
    if (!invoice) return;
    const { data } = event;
    const paymentKey = { tenant_id: data.tenantId, payment_id: data.paymentId };
    const existing = await tx.get(paymentsTable, paymentKey);
    const payment = (
      fields: Pick<PaymentRow, 'status' | 'method' | 'gateway_reference' | 'decline_reason'>,
    ): PaymentRow => ({
      ...paymentKey,
      invoice_id: data.invoiceId,
      amount: data.amount.amount,
      currency: invoice.currency,
      created_position: existing?.created_position ?? position,
      last_position: position,
      ...fields,
    });
    switch (event.type) {
      case 'PaymentRecorded':
        tx.put(
          invoicesTable,
          withMoney(invoice, invoice.paid + data.amount.amount, invoice.reserved, position),
        );
        tx.put(
          paymentsTable,
          payment({
            status: 'recorded',
            method: event.data.method,
            gateway_reference: null,
            decline_reason: null,
          }),
        );
        return;
      case 'CardPaymentReserved':
        tx.put(
          invoicesTable,
          withMoney(invoice, invoice.paid, invoice.reserved + data.amount.amount, position),
        );
        tx.put(
          paymentsTable,
          payment({ status: 'reserved', method: 'card', gateway_reference: null, decline_reason: null }),
        );
        return;
      case 'CardPaymentCaptured':
        tx.put(
          invoicesTable,
          withMoney(
            invoice,
            invoice.paid + data.amount.amount,
            invoice.reserved - data.amount.amount,
            position,
          ),
        );
        tx.put(
          paymentsTable,
          payment({
            status: 'captured',
            method: 'card',
            gateway_reference: event.data.gatewayReference,
            decline_reason: null,
          }),
        );
        return;
      case 'CardPaymentDeclined':
        tx.put(
          invoicesTable,
          withMoney(invoice, invoice.paid, invoice.reserved - data.amount.amount, position),
        );
        tx.put(
          paymentsTable,
          payment({
            status: 'declined',
            method: 'card',
            gateway_reference: event.data.gatewayReference,
            decline_reason: event.data.reason,
          }),
        );
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  },
};
