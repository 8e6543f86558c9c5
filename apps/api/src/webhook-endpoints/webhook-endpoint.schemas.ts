import { z } from 'zod';
import { webhookEventTypes } from '@once/domain/webhook-endpoints';

export const webhookEndpointIdParams = z.strictObject({ id: z.uuid() });
export const webhookMessageParams = z.strictObject({ id: z.uuid(), messageId: z.uuid() });

export const registerWebhookEndpointBody = z.strictObject({
  url: z
    .string()
    .min(1)
    .max(2000)
    .describe('https URL that receives the deliveries (Standard Webhooks, POST)'),
  eventTypes: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(webhookEventTypes.length)
    .describe(`Event types to receive, among: ${webhookEventTypes.join(', ')}`),
});

export const rotateWebhookSecretBody = z
  .strictObject({
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .optional()
      .describe(
        'How long the previous secret still signs deliveries (alongside the new one); 24 h by default',
      ),
  })
  .optional();

export const webhookEndpointView = z.object({
  id: z.uuid(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  status: z.enum(['enabled', 'disabled']),
  disabledReason: z.string().nullable(),
  failingSince: z.string().nullable(),
  registeredAt: z.string(),
  previousSecretExpiresAt: z.string().nullable(),
});

/** The answer of a create or a rotation: the only time the secret is shown (a replay of that key shows it again). */
export const webhookEndpointWithSecret = webhookEndpointView
  .pick({
    id: true,
    url: true,
    eventTypes: true,
    status: true,
    registeredAt: true,
    previousSecretExpiresAt: true,
  })
  .extend({
    secret: z.string().describe('The Standard Webhooks secret (`whsec_…`) to verify deliveries with'),
  });

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
