import { z } from 'zod';
import { webhookEventTypes } from '@once/domain/webhook-endpoints';

export const webhookEndpointIdParams = z.strictObject({ id: z.uuid() });

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
