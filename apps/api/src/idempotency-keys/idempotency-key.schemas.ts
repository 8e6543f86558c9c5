import { z } from 'zod';

export const idempotencyKeyParams = z.strictObject({
  key: z
    .string()
    .min(8)
    .max(255)
    .regex(/^[\x21-\x7e]+$/),
});

export const idempotencyKeyView = z.object({
  key: z.string(),
  status: z.enum(['in_flight', 'completed', 'released']),
  method: z.string(),
  route: z.string(),
  recoveryPoint: z.string().optional(),
  leaseExpiresAt: z.string().optional(),
  responseStatus: z.number().int().optional(),
});
export type IdempotencyKeyView = z.infer<typeof idempotencyKeyView>;
