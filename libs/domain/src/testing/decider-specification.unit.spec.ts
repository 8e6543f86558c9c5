import { describe, expect, it } from 'vitest';
import { InvoiceNotFound, PaymentExceedsBalance } from '../invoices/invoice.errors.js';
import { decider } from '../invoices/invoice.decider.js';
import type { InvoiceIssued } from '../invoices/invoice.events.js';
import type { IssueInvoice, RecordPayment } from '../invoices/invoice.commands.js';
import { asCustomerRef, asInvoiceId, asPaymentId, asTenantId, money } from '../values/index.js';
import { deciderSpecification, runCommands } from './decider-specification.js';

const given = deciderSpecification(decider);
const invoiceId = asInvoiceId('inv-1');
const issued: InvoiceIssued = {
  type: 'InvoiceIssued',
  data: {
    tenantId: asTenantId('t'),
    invoiceId,
    customerRef: asCustomerRef('c'),
    lines: [],
    total: money(100, 'EUR'),
    issuedAt: 'now',
  },
};
const pay = (amount: number): RecordPayment => ({
  type: 'RecordPayment',
  data: {
    invoiceId,
    paymentId: asPaymentId(`p-${amount}`),
    amount: money(amount, 'EUR'),
    method: 'cash',
    recordedAt: 'now',
  },
});

describe('deciderSpecification', () => {
  it('fails when the events differ', () => {
    expect(() => given([issued]).when(pay(10)).then([])).toThrow();
  });

  it('fails when an error was expected but events came', () => {
    expect(() => given([issued]).when(pay(10)).then(PaymentExceedsBalance)).toThrow(
      /expected PaymentExceedsBalance/,
    );
  });

  it('fails when another error class is thrown, or other data', () => {
    expect(() => given([]).when(pay(10)).then(PaymentExceedsBalance)).toThrow(/threw InvoiceNotFound/);
    expect(() => given([]).when(pay(10)).then(InvoiceNotFound, { invoiceId: 'other' })).toThrow();
  });

  it('rethrows an unexpected error when events were expected', () => {
    expect(() => given([]).when(pay(10)).then([])).toThrow(InvoiceNotFound);
  });
});

const issue: IssueInvoice = {
  type: 'IssueInvoice',
  data: {
    tenantId: issued.data.tenantId,
    invoiceId,
    customerRef: issued.data.customerRef,
    currency: 'EUR',
    total: 100,
    issuedAt: 'now',
  },
};

describe('runCommands', () => {
  it('folds accepted commands and collects refusals', () => {
    const run = runCommands(decider, [pay(10), issue, pay(60), pay(50)]);
    expect(run.events.map((event) => event.type)).toEqual(['InvoiceIssued', 'PaymentRecorded']);
    expect(run.rejections.map(({ error }) => error.code)).toEqual([
      'invoice-not-found',
      'payment-exceeds-balance',
    ]);
  });
});
