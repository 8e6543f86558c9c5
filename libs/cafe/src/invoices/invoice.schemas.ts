import { z } from 'zod';
import { isSecretReference } from '@once/idempotency';

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
    // The key log stores `hmac-sha256:<hex>` in its place: a token of that shape could not be told from a stored one.
    .refine(
      (token) => !isSecretReference(token),
      'a card token cannot have the shape hmac-sha256:<64 hex digits>',
    )
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

export const resolvePaymentBody = z.strictObject({
  action: z
    .enum(['inquire', 'mark-declined'])
    .describe(
      '`inquire`: ask the gateway again and record what it has (a charge captures the payment, none declines it); ' +
        '`mark-declined`: release the reserved amount without asking',
    ),
  note: z.string().max(500).default('').describe('Why, for the audit trail'),
});

export const paymentNeedingAttentionView = z.object({
  id: z.uuid(),
  invoiceId: z.uuid(),
  amount: z.number().int(),
  currency: z.string(),
  attempts: z.number().int().describe('Attempts whose outcome stayed unknown (charge or inquiry)'),
  lastError: z.string().nullable(),
  flaggedAt: z.string().describe('When the completer gave up on it, or the mismatched charge was reported'),
  gatewayCharged: z
    .object({ amount: z.number().int(), currency: z.string() })
    .nullable()
    .describe(
      'What the gateway reported charging when it was not the reserved amount and currency: recorded, not applied',
    ),
});
export const paymentsNeedingAttentionList = z.object({ payments: z.array(paymentNeedingAttentionView) });
