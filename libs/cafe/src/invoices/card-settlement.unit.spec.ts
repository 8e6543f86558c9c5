import { describe, expect, it } from 'vitest';
import { asInvoiceId, asPaymentId, asTenantId, money } from '@once/domain';
import type { StartCardSettlement } from '@once/domain/card-settlements';
import { decideSettlement, foldSettlement, needsAttentionResponse } from './card-settlement.js';

const paymentId = asPaymentId('pay-1');
const start: StartCardSettlement = {
  type: 'StartCardSettlement',
  data: {
    tenantId: asTenantId('tenant-1'),
    invoiceId: asInvoiceId('inv-1'),
    paymentId,
    amount: money(800, 'EUR'),
    policy: { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 1_000 },
    startedAt: '2026-12-01T09:00:00.000Z',
  },
};
const unknown = (attemptedAt: string) =>
  ({ type: 'RecordUnknownAttempt', data: { paymentId, error: 'timeout', attemptedAt } }) as const;

describe('card settlement steps', () => {
  it('starts the settlement with the first unknown attempt and flags it at the cap', () => {
    const first = decideSettlement(foldSettlement([]), [start, unknown('2026-12-01T09:00:01.000Z')]);
    expect(first.events.map((event) => event.type)).toEqual([
      'CardSettlementStarted',
      'CardSettlementAttemptFailed',
    ]);
    expect(first.state).toMatchObject({
      status: 'settling',
      attempts: 1,
      nextAttemptAt: '2026-12-01T09:00:02.000Z',
    });
    expect(foldSettlement(first.events)).toEqual(first.state);

    const second = decideSettlement(first.state, [unknown('2026-12-01T09:00:03.000Z')]);
    expect(second.events.map((event) => event.type)).toEqual([
      'CardSettlementAttemptFailed',
      'CardSettlementNeedsAttention',
    ]);
    expect(second.state).toMatchObject({ status: 'needs-attention', attempts: 2, lastError: 'timeout' });
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
