import { describe, expect, it } from 'vitest';
import { asCustomerRef, asInvoiceId, asPaymentId, asTenantId, money } from '@once/domain';
import { CardReservationNotFound, invoiceDecider } from '@once/domain/invoices';
import type { InvoiceEvent } from '@once/domain/invoices';
import { decideCardPayment, foldCardPayment, needsAttentionResponse } from './card-payment-workflow.js';

const tenantId = asTenantId('tenant-1');
const invoiceId = asInvoiceId('inv-1');
const paymentId = asPaymentId('pay-1');
const at = '2026-12-01T09:00:00.000Z';
const policy = { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 1_000 };
const invoiceEvents: InvoiceEvent[] = [
  {
    type: 'InvoiceIssued',
    data: {
      tenantId,
      invoiceId,
      customerRef: asCustomerRef('c'),
      lines: [],
      total: money(1000, 'EUR'),
      issuedAt: at,
    },
  },
  {
    type: 'CardPaymentReserved',
    data: { tenantId, invoiceId, paymentId, amount: money(800, 'EUR'), reservedAt: at },
  },
  {
    type: 'CardPaymentReserved',
    data: { tenantId, invoiceId, paymentId: asPaymentId('pay-2'), amount: money(100, 'EUR'), reservedAt: at },
  },
];
const invoice = invoiceEvents.reduce(invoiceDecider.evolve, invoiceDecider.initialState());

describe('running the card payment workflow', () => {
  it('folds a payment from its own invoice events only, then its settlement', () => {
    expect(foldCardPayment(paymentId, invoiceEvents)).toMatchObject({
      status: 'charging',
      reservation: { paymentId, amount: money(800, 'EUR') },
    });
    expect(foldCardPayment(asPaymentId('pay-3'), invoiceEvents)).toEqual({ status: 'none' });
  });

  it('carries out the invoice commands with the invoice decider and keeps the settlement events apart', () => {
    const state = foldCardPayment(paymentId, invoiceEvents);
    const decided = decideCardPayment(
      {
        type: 'RecordGatewayReply',
        data: {
          paymentId,
          reply: {
            kind: 'charged',
            charge: { gatewayReference: 'ch_1', status: 'succeeded', amount: 800, currency: 'EUR' },
          },
          policy,
          at,
        },
      },
      state,
      invoice,
    );
    if (!decided.ok) throw decided.error;
    expect(decided.value.invoiceEvents.map((event) => event.type)).toEqual(['CardPaymentCaptured']);
    expect(decided.value.settlementEvents).toEqual([]);
    expect(decided.value.intents).toEqual([{ type: 'AnswerPayment', data: { paymentId } }]);
    expect(decided.value.invoice).toMatchObject({ paid: 800, reserved: 100 });

    const unknown = decideCardPayment(
      {
        type: 'RecordGatewayReply',
        data: { paymentId, reply: { kind: 'unknown', error: 'timeout' }, policy, at },
      },
      state,
      invoice,
    );
    if (!unknown.ok) throw unknown.error;
    expect(unknown.value.invoiceEvents).toEqual([]);
    expect(unknown.value.settlementEvents.map((event) => event.type)).toEqual([
      'CardSettlementStarted',
      'CardSettlementAttemptFailed',
    ]);
    expect(unknown.value.intents.map((intent) => intent.type)).toEqual(['RetryLater']);
  });

  it('returns a rule that forbids the input as a value', () => {
    const decided = decideCardPayment(
      {
        type: 'ReceiveGatewayCharge',
        data: {
          invoiceId,
          paymentId: asPaymentId('pay-3'),
          charge: { gatewayReference: 'ch_3', status: 'succeeded', amount: 800, currency: 'EUR' },
          policy,
          at,
        },
      },
      foldCardPayment(asPaymentId('pay-3'), invoiceEvents),
      invoice,
    );
    expect(decided.ok).toBe(false);
    expect(decided.ok ? undefined : decided.error).toBeInstanceOf(CardReservationNotFound);
  });

  it('answers a flagged payment with the documented problem, the same bytes every time', () => {
    const response = needsAttentionResponse(paymentId, 2);
    expect(response.status).toBe(424);
    expect(JSON.parse(String(response.body))).toMatchObject({
      type: '/problems/payment-needs-attention',
      status: 424,
      paymentId,
      attempts: 2,
    });
    expect(needsAttentionResponse(paymentId, 2)).toEqual(response);
  });
});
