import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Http, TextResponse } from './http.js';

/** A payment body the api takes: cash, or a card with a token the gateway simulator knows. */
export const cashPayment = (amount: number) => ({ method: 'cash', amount, currency: 'EUR' });
export const cardPayment = (amount: number, cardToken = 'tok_visa') => ({
  method: 'card',
  amount,
  currency: 'EUR',
  cardToken,
});

/** The invoice calls the e2e tests make, as one API key. */
export interface InvoiceCalls {
  /** Issues an invoice of `total` (one line, two items) and answers its id. */
  issueInvoice(total?: number): Promise<string>;
  pay(invoiceId: string, key: string, body: unknown): Promise<TextResponse>;
  invoice(invoiceId: string): Promise<Record<string, unknown>>;
  /** The charges the gateway made for a payment (by its id). */
  charges(paymentId: string): Promise<unknown[]>;
}

/**
 * The invoice calls over `http` as `apiKey`, with the gateway simulator at `gatewayUrl` (asked for its charges with
 * `gatewayApiToken`, the bearer secret it was started with, if any).
 *
 * @example
 * const calls = invoiceCalls(http, tenant.alice, gateway.url, gatewayApiToken);
 * const invoiceId = await calls.issueInvoice();
 */
export const invoiceCalls = (
  http: Http,
  apiKey: string,
  gatewayUrl = 'http://127.0.0.1:9',
  gatewayApiToken?: string,
): InvoiceCalls => ({
  issueInvoice: async (total = 1000) => {
    const response = await http.post('/invoices', {
      apiKey,
      key: randomUUID(),
      body: {
        customerRef: 'table-4',
        currency: 'EUR',
        lines: [{ description: 'Flat white', quantity: 2, unitPrice: total / 2 }],
      },
    });
    expect(response.status).toBe(201);
    return response.json<{ id: string }>().id;
  },
  pay: (invoiceId, key, body) => http.post(`/invoices/${invoiceId}/payments`, { apiKey, key, body }),
  invoice: async (invoiceId) => (await http.get(`/invoices/${invoiceId}`, apiKey)).json(),
  charges: async (paymentId) =>
    (
      (await (
        await fetch(`${gatewayUrl}/charges?reference=${paymentId}`, {
          ...(gatewayApiToken ? { headers: { authorization: `Bearer ${gatewayApiToken}` } } : {}),
        })
      ).json()) as { charges: unknown[] }
    ).charges,
});

/** The same key with a different body is refused (422) and changes nothing. */
export const expectKeyReuseRefused = async (calls: InvoiceCalls): Promise<void> => {
  const invoiceId = await calls.issueInvoice();
  const key = randomUUID();
  expect((await calls.pay(invoiceId, key, cashPayment(400))).status).toBe(201);
  const reused = await calls.pay(invoiceId, key, cashPayment(500));
  expect(reused.status).toBe(422);
  expect(reused.json()).toMatchObject({ type: '/problems/idempotency-key-reused' });
  expect(await calls.invoice(invoiceId)).toMatchObject({ paid: 400, payments: [expect.anything()] });
};

/** 10 concurrent duplicates make one payment; every answer is 201 or 409, every 201 the same body. */
export const expectConcurrentDuplicatesOnce = async (calls: InvoiceCalls): Promise<void> => {
  const invoiceId = await calls.issueInvoice();
  const key = randomUUID();
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => calls.pay(invoiceId, key, cashPayment(300))),
  );
  for (const answer of answers) expect([201, 409]).toContain(answer.status);
  const created = answers.filter((answer) => answer.status === 201);
  expect(created.length).toBeGreaterThan(0);
  expect(new Set(created.map((answer) => answer.text)).size).toBe(1);
  expect(await calls.invoice(invoiceId)).toMatchObject({ paid: 300, payments: [expect.anything()] });
};

/** A card payment is captured once, its replay is byte for byte, and the gateway charged once. */
export const expectCardCapturedOnce = async (calls: InvoiceCalls): Promise<void> => {
  const invoiceId = await calls.issueInvoice();
  const key = randomUUID();
  const first = await calls.pay(invoiceId, key, cardPayment(700));
  expect(first.status).toBe(201);
  expect(first.json()).toMatchObject({ status: 'captured', method: 'card', amount: 700 });
  const again = await calls.pay(invoiceId, key, cardPayment(700));
  expect(again.text).toBe(first.text);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await calls.charges(first.json<{ id: string }>().id)).toHaveLength(1);
  expect(await calls.invoice(invoiceId)).toMatchObject({ paid: 700, outstanding: 300 });
};
