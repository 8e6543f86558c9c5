import { z } from 'zod';

const amount = z
  .number()
  .int()
  .positive()
  .max(Number.MAX_SAFE_INTEGER)
  .describe('Minor units (cents for EUR)');
const currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .describe('ISO 4217 code');

export const invoiceIdParams = z.strictObject({ id: z.uuid() });
export const paymentIdParams = z.strictObject({ id: z.uuid() });

const invoiceLine = z.strictObject({
  description: z.string().min(1).max(200),
  quantity: z.number().int().positive().max(1_000_000),
  unitPrice: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('Minor units'),
});

export const issueInvoiceBody = z.union([
  z.strictObject({
    customerRef: z.string().min(1).max(100).default('walk-in'),
    currency,
    lines: z.array(invoiceLine).min(1).max(200),
  }),
  z.strictObject({ customerRef: z.string().min(1).max(100).default('walk-in'), currency, total: amount }),
]);

export const cashPaymentBody = z.strictObject({ method: z.literal('cash'), amount, currency });
export const cardPaymentBody = z.strictObject({
  method: z.literal('card'),
  amount,
  currency,
  cardToken: z
    .string()
    .min(1)
    .max(100)
    .describe('A tokenised card (gateway-sim: `tok_declined` is declined)'),
});
export const recordPaymentBody = z.discriminatedUnion('method', [cashPaymentBody, cardPaymentBody]);

export const paymentView = z.object({
  id: z.uuid(),
  invoiceId: z.uuid(),
  status: z.enum(['recorded', 'reserved', 'captured', 'declined']),
  method: z.enum(['cash', 'card']),
  amount: z.number().int(),
  currency: z.string(),
  gatewayReference: z.string().optional(),
  declineReason: z.string().optional(),
});
export type PaymentView = z.infer<typeof paymentView>;

export const invoiceView = z.object({
  id: z.uuid(),
  customerRef: z.string(),
  currency: z.string(),
  total: z.number().int(),
  paid: z.number().int(),
  reserved: z.number().int(),
  outstanding: z.number().int(),
  status: z.enum(['open', 'paid']),
  payments: z.array(paymentView),
});
export type InvoiceView = z.infer<typeof invoiceView>;
