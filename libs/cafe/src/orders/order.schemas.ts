import { z } from 'zod';
import { maxOrderLines } from '@once/domain/orders';

export const orderIdParams = z.strictObject({ id: z.uuid() });

export const placeOrderBody = z.strictObject({
  currency: z.string().regex(/^[A-Z]{3}$/),
  lines: z
    .array(
      z.strictObject({
        sku: z.string().min(1).max(100).describe('An item on the menu: the server prices the line from it'),
        quantity: z.number().int().positive().max(1_000_000),
      }),
    )
    .min(1)
    .max(maxOrderLines)
    .describe(`At most ${String(maxOrderLines)} lines; no prices: the server takes each from the menu`),
  expectedTotal: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(
      'The total the client showed (minor units); a different total at the menu’s prices holds the order for review',
    ),
});

export const orderView = z.object({
  id: z.uuid(),
  status: z.enum(['placed', 'held', 'served', 'completed']),
  currency: z.string(),
  total: z.number().int(),
  lines: z.array(z.object({ sku: z.string(), quantity: z.number().int(), unitPrice: z.number().int() })),
  placedAt: z.string(),
  expectedTotal: z.number().int().optional(),
  servedAt: z.string().optional(),
  saleId: z.uuid().optional(),
  completedAt: z.string().optional(),
});
export type OrderView = z.infer<typeof orderView>;
