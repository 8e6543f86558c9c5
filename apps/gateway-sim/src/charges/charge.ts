import { z } from 'zod';

/** What the merchant asks the gateway to charge. */
export const chargeRequestSchema = z.strictObject({
  reference: z
    .string()
    .min(1)
    .max(200)
    .describe('The merchant reference; the inquiry call finds charges by it'),
  amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('Minor units'),
  currency: z.string().regex(/^[A-Z]{3}$/),
  cardToken: z
    .string()
    .min(1)
    .max(100)
    .describe(
      'A tokenised card; `tok_declined` is declined, `tok_insufficient_funds` too, every other token succeeds',
    ),
  metadata: z
    .record(z.string().max(40), z.string().max(200))
    .refine((entries) => Object.keys(entries).length <= 20, 'at most 20 entries')
    .optional()
    .describe('Merchant data echoed back on the charge and its webhooks'),
});
export type ChargeRequest = z.infer<typeof chargeRequestSchema>;

export const chargeSchema = z.object({
  id: z.string(),
  reference: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(['succeeded', 'declined']),
  declineCode: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  createdAt: z.string(),
});
/** A charge as the gateway recorded it. */
export type Charge = z.infer<typeof chargeSchema>;

const declineCodes: Readonly<Record<string, string>> = {
  tok_declined: 'card_declined',
  tok_insufficient_funds: 'insufficient_funds',
};

/**
 * Decides a new charge: the card token alone says whether the bank declines it.
 *
 * @example
 * const charge = decideCharge('ch_1', { reference: 'r', amount: 100, currency: 'EUR', cardToken: 'tok_visa' }, new Date());
 */
export const decideCharge = (id: string, request: ChargeRequest, now: Date): Charge => {
  const declineCode = declineCodes[request.cardToken];
  return {
    id,
    reference: request.reference,
    amount: request.amount,
    currency: request.currency,
    status: declineCode ? 'declined' : 'succeeded',
    ...(declineCode ? { declineCode } : {}),
    ...(request.metadata ? { metadata: request.metadata } : {}),
    createdAt: now.toISOString(),
  };
};
