import { z } from 'zod';

export const menuItemParams = z.strictObject({
  sku: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/)
    .describe('Lower-case letters, digits and dashes'),
});

export const setMenuItemBody = z.strictObject({
  name: z.string().min(1).max(100),
  unitPrice: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('Minor units'),
  currency: z.string().regex(/^[A-Z]{3}$/),
});

export const menuItemView = z.object({
  sku: z.string(),
  name: z.string(),
  unitPrice: z.number().int(),
  currency: z.string(),
  updatedAt: z.string(),
});

export const withdrawnMenuItemView = z.object({
  sku: z.string(),
  status: z.literal('withdrawn'),
  withdrawnAt: z.string(),
});

export const menuView = z.object({ items: z.array(menuItemView) });
