import { describe, expect, it } from 'vitest';
import { upcastFirstFormatClaim } from './legacy-claims.js';

const invoiceId = '3f9c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';

describe('upcastFirstFormatClaim', () => {
  it('tells a card payment from a cash payment on one route by the schema', () => {
    const route = { method: 'POST', route: '/invoices/:id/payments', params: { id: invoiceId } };
    expect(
      upcastFirstFormatClaim({ ...route, body: { method: 'cash', amount: 500, currency: 'EUR' } }),
    ).toEqual({
      type: 'PayInvoiceByCash',
      version: 1,
      data: { invoiceId, amount: 500, currency: 'EUR' },
    });
    expect(
      upcastFirstFormatClaim({
        ...route,
        body: { method: 'card', amount: 800, currency: 'EUR', cardToken: 'tok_visa' },
      }),
    ).toEqual({
      type: 'PayInvoiceByCard',
      version: 1,
      data: { invoiceId, amount: 800, currency: 'EUR', cardToken: 'tok_visa' },
      // A first-format claim stored the token itself; the typed command still names it secret.
      secretFields: ['cardToken'],
    });
  });

  it('upcasts the routes without params or body', () => {
    expect(
      upcastFirstFormatClaim({ method: 'POST', route: '/stock-counts', params: {}, body: null }),
    ).toEqual({
      type: 'OpenStockCount',
      version: 1,
      data: {},
    });
    expect(
      upcastFirstFormatClaim({
        method: 'POST',
        route: '/orders/:id/serve',
        params: { id: invoiceId },
        body: {},
      }),
    ).toEqual({ type: 'ServeOrder', version: 1, data: { orderId: invoiceId } });
  });

  it('knows nothing of routes the first format never had, or of input no command accepts', () => {
    expect(
      upcastFirstFormatClaim({ method: 'POST', route: '/refunds', params: {}, body: {} }),
    ).toBeUndefined();
    expect(
      upcastFirstFormatClaim({
        method: 'POST',
        route: '/invoices/:id/payments',
        params: { id: invoiceId },
        body: { method: 'cheque', amount: 1, currency: 'EUR' },
      }),
    ).toBeUndefined();
  });
});
