import { z } from 'zod';
import { paymentNeedingAttentionView as paymentNeedingAttentionBase } from '@once/cafe';

const uuid = z.uuid();

/** `?key=` or `?resource=` (exactly one). */
export const keyLookupQuery = z
  .strictObject({
    key: z
      .string()
      .min(8)
      .max(255)
      .regex(/^[\x21-\x7e]+$/)
      .optional()
      .describe('An Idempotency-Key (of any actor of your tenant)'),
    resource: uuid
      .optional()
      .describe('The id of something a key created or touched (order, invoice, payment…)'),
  })
  .refine((query) => (query.key === undefined) !== (query.resource === undefined), {
    message: 'give exactly one of key and resource',
  });

/** One event of a key log, shown as it is stored: its type, time and data, whatever their shape. */
export const keyLogEntryView = z.object({
  revision: z.string(),
  type: z.string(),
  recordedAt: z.string(),
  position: z.string(),
  data: z.unknown(),
});

const keySummary = {
  key: z.string(),
  actorId: z.string(),
  status: z.enum(['in_flight', 'completed', 'released']),
  method: z.string(),
  route: z.string(),
  recoveryPoint: z.string(),
  holder: z.string().optional(),
  leaseExpiresAt: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const keyInFlightView = z.object({ ...keySummary, leaseExpired: z.boolean() });

export const keyTimelineView = z.object({
  ...keySummary,
  response: z
    .object({ status: z.number().int(), headers: z.record(z.string(), z.string()), body: z.string() })
    .optional(),
  releaseReason: z.string().optional(),
  events: z.array(keyLogEntryView),
});
export type KeyTimelineView = z.infer<typeof keyTimelineView>;

export const keyLookupView = z.object({ keys: z.array(keyTimelineView) });
export const keysInFlightView = z.object({ keys: z.array(keyInFlightView) });
export const unresumableKeyView = z.object({
  key: z.string(),
  commandType: z.string().describe('The command type its claim recorded'),
  leaseExpiredAt: z.string(),
});
export const unresumableKeysView = z.object({ keys: z.array(unresumableKeyView) });

export const paymentNeedingAttentionView = paymentNeedingAttentionBase.extend({
  method: z.literal('card'),
  status: z.literal('needs-attention'),
});
export const paymentsNeedingAttentionView = z.object({ payments: z.array(paymentNeedingAttentionView) });

export const projectionLagView = z.object({
  name: z.string(),
  version: z.number().int(),
  checkpoint: z.string().optional(),
  checkpointUpdatedAt: z.string(),
  behindEvents: z
    .number()
    .int()
    .describe('Events in the log after the checkpoint (counted up to `countLimit`)'),
  countLimit: z.number().int(),
  oldestUnappliedAt: z.string().optional().describe('When the first event after the checkpoint was written'),
});
export const projectionsLagView = z.object({ projections: z.array(projectionLagView) });

export const routeRatesView = z.object({
  method: z.string(),
  route: z.string(),
  requests: z.number().int(),
  status409: z.number().int(),
  status422: z.number().int(),
  keyed: z.number().int().describe('Requests the idempotency layer decided'),
  replays: z.number().int(),
  replayRate: z.number().describe('replays ÷ keyed (0 when nothing was keyed)'),
  conflictRate: z.number().describe('409 answers ÷ requests'),
  unprocessableRate: z.number().describe('422 answers ÷ requests'),
});
export const routesRatesView = z.object({ since: z.string(), routes: z.array(routeRatesView) });
