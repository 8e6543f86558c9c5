import { describe, expect, it } from 'vitest';
import * as cardSettlementErrors from '../card-settlements/card-settlement.errors.js';
import * as invoiceErrors from '../invoices/invoice.errors.js';
import * as menuErrors from '../menus/menu.errors.js';
import * as orderErrors from '../orders/order.errors.js';
import { asInvoiceId, asOrderId, asPaymentId, money } from '../values/index.js';
import * as stockCountErrors from '../stock-counts/stock-count.errors.js';
import * as webhookEndpointErrors from '../webhook-endpoints/webhook-endpoint.errors.js';
import { DomainError, domainError } from './domain-error.js';
import { domainErrorCatalog } from './domain-error-catalog.js';
import * as moneyErrors from './money-errors.js';

const errorClasses = Object.values({
  ...moneyErrors,
  ...invoiceErrors,
  ...orderErrors,
  ...menuErrors,
  ...stockCountErrors,
  ...webhookEndpointErrors,
  ...cardSettlementErrors,
}) as (new (data: never) => DomainError)[];

// Enough data for any error's message; each class reads only its own fields.
const sampleData = {
  invoiceId: asInvoiceId('inv-1'),
  paymentId: asPaymentId('p-1'),
  orderId: asOrderId('o-1'),
  stockCountId: 's-1',
  endpointId: 'ep-1',
  unknown: ['Nope'],
  saleId: 'sale-1',
  amount: money(1, 'EUR'),
  outstanding: money(0, 'EUR'),
  expectedTotal: money(1, 'EUR'),
  total: money(2, 'EUR'),
  field: 'amount',
  quantity: 0,
  currency: 'eur',
  expected: 'EUR',
  given: 'USD',
  recorded: 'captured',
  gatewayReference: 'gw-1',
  outcome: 'declined',
  sku: 'espresso',
  line: 0,
  lines: 201,
  maxLines: 200,
  maxItems: 500,
} as never;

describe('domain error catalog', () => {
  const instances = errorClasses.map((ErrorClass) => new ErrorClass(sampleData));

  it('documents every code an error class carries, and no code without a class', () => {
    const codes = instances.map((error) => error.code).sort();
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual(Object.keys(domainErrorCatalog).sort());
  });

  it('documents every code with a title, a description and a message, and no HTTP status', () => {
    for (const [code, entry] of Object.entries(domainErrorCatalog)) {
      expect(Object.keys(entry).sort(), code).toEqual(['description', 'message', 'title']);
      expect(entry.title.length, code).toBeGreaterThan(10);
      expect(entry.description.length, code).toBeGreaterThan(20);
    }
  });

  it('names each error after its class and keeps its data and the standard cause', () => {
    for (const error of instances) {
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(error.constructor.name);
      expect(error.message).not.toBe('');
    }
    const notFound = new orderErrors.OrderNotFound({ orderId: asOrderId('o-7') });
    expect(notFound.message).toBe(domainErrorCatalog['order-not-found'].message({ orderId: 'o-7' }));
    expect(notFound.code).toBe('order-not-found');
    const cause = new Error('root');
    const error = new orderErrors.OrderNotFound({ orderId: asOrderId('o-1') }, { cause });
    expect(error.cause).toBe(cause);
    expect(error.data).toEqual({ orderId: 'o-1' });
  });

  it('takes the data the catalogue message reads, and no other', () => {
    // @ts-expect-error the message of order-not-found reads orderId (the compiler checks this line)
    class MisnamedData extends domainError('order-not-found')<{ id: string }> {}
    expect(new MisnamedData({ id: 'o-1' }).code).toBe('order-not-found');
  });
});
