import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Migration } from '@once/postgres';
import { HttpProblem } from '@once/cafe';

export interface HealthRoutesOptions {
  /** The schema this api applies at start, by component: ready only while the database has every version. */
  readonly migrations: readonly { readonly component: string; readonly migrations: readonly Migration[] }[];
}

const readyAnswer = z.object({
  status: z.literal('ok'),
  checks: z.object({
    postgres: z.literal('ok'),
    eventStore: z.enum(['ok', 'postgres']).describe('postgres: the streams are in PostgreSQL'),
    projector: z
      .enum(['alive', 'external'])
      .describe('external: apps/projector runs it (ONCE_PROJECTOR=external)'),
    migrations: z.literal('applied'),
  }),
});

/**
 * Probes. `GET /health/live`: 200 while the process answers (restart it otherwise). `GET /health/ready` (and
 * `GET /health`, the same): 200 when PostgreSQL answers, EventStoreDB too when it holds the streams, the in-process
 * projector thread runs (or the projector is external), and every migration of this api is applied; otherwise 503
 * `service-unavailable` naming what is not ready (take it out of the load balancer, don't restart it).
 */
export const healthRoutes: FastifyPluginAsyncZod<HealthRoutesOptions> = async (app, { migrations }) => {
  const expected = migrations.map(({ component, migrations: list }) => ({
    component,
    version: Math.max(0, ...list.map((migration) => migration.version)),
  }));

  const notReady = (detail: string): HttpProblem =>
    new HttpProblem('service-unavailable', { detail, retryAfterSeconds: 1 });

  const ready = async (log: { warn(details: object, message: string): void }) => {
    try {
      await app.pg.query('SELECT 1');
    } catch (error) {
      log.warn({ err: error }, 'health check failed');
      throw notReady('PostgreSQL did not answer');
    }
    const applied = await app.pg.query<{ component: string; version: number }>(
      'SELECT component, max(version) AS version FROM once_migrations WHERE component = ANY ($1) GROUP BY component',
      [expected.map((entry) => entry.component)],
    );
    const missing = expected.filter(
      ({ component, version }) =>
        (applied.rows.find((row) => row.component === component)?.version ?? 0) < version,
    );
    if (missing.length > 0)
      throw notReady(`migrations not applied: ${missing.map((entry) => entry.component).join(', ')}`);
    const eventStore = app.eventStoreHealth;
    if (eventStore) {
      try {
        await eventStore.check();
      } catch (error) {
        log.warn({ err: error }, 'health check failed');
        throw notReady(`${eventStore.name} did not answer`);
      }
    }
    const projector = app.projectorThread;
    if (projector && !projector.alive()) throw notReady('the projector thread is restarting');
    return {
      status: 'ok' as const,
      checks: {
        postgres: 'ok' as const,
        eventStore: eventStore ? ('ok' as const) : ('postgres' as const),
        projector: projector ? ('alive' as const) : ('external' as const),
        migrations: 'applied' as const,
      },
    };
  };

  app.get(
    '/health/live',
    {
      config: { role: 'public' },
      schema: {
        operationId: 'checkLiveness',
        summary: 'Liveness: the process runs and answers',
        tags: ['operations'],
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  for (const [url, operationId] of [
    ['/health/ready', 'checkReadiness'],
    ['/health', 'checkHealth'],
  ] as const) {
    app.get(
      url,
      {
        config: { role: 'public' },
        schema: {
          operationId,
          summary: 'Readiness: the databases answer, the projector runs, the migrations are applied',
          tags: ['operations'],
          response: { 200: readyAnswer },
        },
      },
      async (request) => ready(request.log),
    );
  }
};
