import { z } from 'zod';

/** A gateway event as apps/gateway-sim delivers it. */
export const gatewayEventSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.enum(['charge.succeeded', 'charge.declined']),
  createdAt: z.string(),
  data: z.object({
    id: z.string().min(1).max(200),
    reference: z.uuid(),
    amount: z.number().int(),
    currency: z.string(),
    status: z.enum(['succeeded', 'declined']),
    declineCode: z.string().optional(),
    metadata: z.record(z.string(), z.string()).optional(),
  }),
});
export type GatewayEvent = z.infer<typeof gatewayEventSchema>;
