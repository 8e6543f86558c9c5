import { z } from 'zod';

export const stockCountIdParams = z.strictObject({ id: z.uuid() });

export const recordCountLineBody = z.strictObject({
  sku: z.string().min(1).max(100),
  countedQuantity: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});

export const stockCountView = z.object({
  id: z.uuid(),
  status: z.enum(['open', 'posted']),
  lines: z.array(z.object({ sku: z.string(), countedQuantity: z.number().int() })),
  openedAt: z.string(),
  postedAt: z.string().optional(),
});
export type StockCountView = z.infer<typeof stockCountView>;
