import Fastify from 'fastify';
import type { FastifyError, FastifyInstance, FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import { chargesRoutes, createEventSourcedChargeLedger } from './charges/index.js';
import type { ChargeLedger } from './charges/index.js';
import { createFaultPlan, faultsRoutes } from './faults/index.js';
import type { FaultAccess, FaultPlan } from './faults/index.js';
import { createWebhookSender } from './webhooks/index.js';
import type { WebhookSender } from './webhooks/index.js';

/** What the gateway simulator is built from; every part has an in-memory default (the ledger: the idempotency engine over an in-memory event store). */
export interface GatewaySimDeps {
  readonly ledger?: ChargeLedger;
  readonly faults?: FaultPlan;
  /** Where to send signed `charge.*` events; none are sent when omitted. */
  readonly webhook?: { readonly url: string; readonly secret: string };
  readonly logger?: FastifyServerOptions['logger'];
  readonly now?: () => Date;
  /** Who may use the fault controls; `open` by default (in-process tests). The process entry decides from its env. */
  readonly faultAccess?: FaultAccess;
  /** The bearer secret `/charges` needs; open when omitted (in-process tests). The process entry always sets it off loopback. */
  readonly apiToken?: string;
}

/** The built simulator: the Fastify instance and the fault plan tests arm directly. */
export interface GatewaySim {
  readonly app: FastifyInstance;
  readonly faults: FaultPlan;
}

/**
 * Builds the card gateway simulator (wiring only; it does not listen).
 *
 * @example
 * const { app, faults } = buildGatewaySim({ logger: false });
 * faults.arm('charge', { kind: 'lost-response' });
 * await app.listen({ port: 0, host: '127.0.0.1' });
 */
export const buildGatewaySim = (deps: GatewaySimDeps = {}): GatewaySim => {
  const faults = deps.faults ?? createFaultPlan();
  const ledger =
    deps.ledger ??
    createEventSourcedChargeLedger(createInMemoryEventStore({ atomicMultiStreamAppend: true }));
  const webhooks: WebhookSender | undefined = deps.webhook
    ? createWebhookSender({
        ...deps.webhook,
        onError: (error, event) => app.log.warn({ err: error, eventId: event.id }, 'webhook delivery failed'),
      })
    : undefined;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: 16 * 1024,
    // A hanging request must not hold shutdown forever.
    forceCloseConnections: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler<FastifyError>((error, _request, reply) => {
    const status =
      error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
        ? error.statusCode
        : 500;
    if (status === 500) app.log.error({ err: error }, 'unexpected error');
    const type = status === 500 ? 'internal' : 'invalid-request';
    return reply
      .code(status)
      .type('application/problem+json')
      .send({
        type: `/problems/${type}`,
        title: type,
        status,
        detail: status === 500 ? undefined : error.message,
      });
  });
  app.addHook('onClose', async () => webhooks?.close());

  app.get('/health', async () => ({ status: 'ok' }));
  void app.register(chargesRoutes, {
    prefix: '/charges',
    ledger,
    faults,
    faultAccess: deps.faultAccess ?? 'open',
    apiToken: deps.apiToken,
    webhooks,
    now: deps.now ?? (() => new Date()),
  });
  void app.register(faultsRoutes, { prefix: '/admin', faults, access: deps.faultAccess ?? 'open' });
  return { app, faults };
};
