import { z } from 'zod';

export const webhookMessageParams = z.strictObject({ id: z.uuid(), messageId: z.uuid() });

export const webhookMessagesQuery = z.strictObject({
  status: z.enum(['pending', 'held', 'delivered', 'dead']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const webhookAttemptsQuery = z.strictObject({
  messageId: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const webhookMessageView = z.object({
  messageId: z.string(),
  eventType: z.string(),
  stream: z.string(),
  status: z
    .enum(['pending', 'held', 'delivered', 'dead'])
    .describe('held: enqueued while the endpoint was disabled, delivered once it is enabled again'),
  attempts: z.number().int(),
  appendedAt: z.string(),
  nextAttemptAt: z.string().nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z
    .string()
    .nullable()
    .describe("The last failed attempt's error class (see `error` of an attempt)"),
  deliveredAt: z.string().nullable(),
});

export const webhookAttemptView = z.object({
  messageId: z.string(),
  attempt: z.number().int(),
  outcome: z.enum(['delivered', 'failed', 'dead']),
  statusCode: z.number().int().nullable(),
  error: z
    .string()
    .nullable()
    .describe(
      'Why the attempt failed, as a class: `timeout`, `connection-refused`, `connection-reset`, `unreachable`, ' +
        '`dns`, `tls`, `blocked-address` (the URL resolves to an address deliveries may not reach), `invalid-url`, ' +
        '`network`, `http-3xx` (redirects are not followed), `http-4xx` or `http-5xx`',
    ),
  startedAt: z.string(),
  durationMs: z.number(),
  nextAttemptAt: z.string().nullable(),
});

export const replayWebhookMessagesBody = z
  .strictObject({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) })
  .refine((range) => Date.parse(range.from) < Date.parse(range.to), 'from must be before to');
