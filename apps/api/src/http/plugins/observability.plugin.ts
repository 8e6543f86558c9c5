import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { serveMetrics } from '@once/cafe';
import type { MetricsListener } from '@once/cafe';

/**
 * How the idempotency layer answered a keyed command (a Prometheus label and a log field); `unavailable` is a
 * retryable 503 (contention, the store, or effects left for a resume).
 */
export type IdempotencyOutcome =
  'first' | 'replay' | 'in_flight' | 'reused' | 'expired' | 'released' | 'unavailable';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's Prometheus registry, served at `/metrics`; plugins add their own metrics to it. */
    metricsRegistry: Registry;
    /** Where `/metrics` is served when it has its own listener (`undefined`: on the api's port). */
    metricsUrl(): string | undefined;
  }
  interface FastifyRequest {
    /** Set by command routes once the idempotency layer has decided. */
    idempotencyOutcome: IdempotencyOutcome | undefined;
  }
}

export interface ObservabilityOptions {
  /** Serve `/metrics` on its own (internal) address instead of the api's; port 0 picks a free one. */
  readonly metricsListener?: MetricsListener;
}

/**
 * Prometheus metrics at `/metrics` (on the api's port, or on its own internal listener): request durations per route
 * and status (`once_http_request_duration_seconds`), idempotency outcomes per route
 * (`once_idempotency_outcomes_total`: first, replay, in_flight, reused, expired, released, unavailable) and the process's own
 * (`once_process_*`, `once_nodejs_*`); and one structured log line per request carrying the request id and the
 * idempotency outcome. Each app has its own registry; every metric carries the one `once_` prefix.
 */
export const observabilityPlugin = fp<ObservabilityOptions>(
  async (app, { metricsListener }) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: 'once_' });
    app.decorate('metricsRegistry', registry);
    const durations = new Histogram({
      name: 'once_http_request_duration_seconds',
      help: 'HTTP request durations by route and status',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    const outcomes = new Counter({
      name: 'once_idempotency_outcomes_total',
      help: 'Keyed commands by how the idempotency layer answered them (first, replay, in_flight, reused, expired, released, unavailable)',
      labelNames: ['route', 'outcome'] as const,
      registers: [registry],
    });

    app.decorateRequest('idempotencyOutcome', undefined);
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      durations.observe(
        { method: request.method, route, status_code: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      if (request.idempotencyOutcome) outcomes.inc({ route, outcome: request.idempotencyOutcome });
      request.log.info(
        {
          method: request.method,
          route,
          statusCode: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 100) / 100,
          clientAddress: request.ip,
          ...(request.idempotencyOutcome ? { idempotencyOutcome: request.idempotencyOutcome } : {}),
        },
        'request completed',
      );
      done();
    });

    if (metricsListener) {
      const server = await serveMetrics(registry, metricsListener);
      app.decorate('metricsUrl', () => server.url);
      app.addHook('onClose', async () => server.close());
    } else {
      app.decorate('metricsUrl', () => undefined);
      app.get('/metrics', { config: { role: 'public' }, schema: { hide: true } }, async (_request, reply) =>
        reply.type(registry.contentType).send(await registry.metrics()),
      );
    }
  },
  { name: 'once-observability', fastify: '5.x' },
);
