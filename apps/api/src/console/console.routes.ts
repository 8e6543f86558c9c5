import { Gauge } from 'prom-client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { problemView } from '../http/commands/command-schemas.js';
import {
  keyLookupQuery,
  keyLookupView,
  keysInFlightView,
  paymentsNeedingAttentionView,
  projectionsLagView,
  routesRatesView,
  unresumableKeysView,
} from './console.schemas.js';
import { listKeysInFlight, lookUpKeys } from './key-timeline.js';
import { listConsolePaymentsNeedingAttention } from './payments-needing-attention.js';
import { measureProjectionLag } from './projection-lag.js';
import { routeRates } from './route-rates.js';
import { listUnresumableKeys } from './unresumable-keys.js';

const readProblems = { 400: problemView, 401: problemView };

/**
 * What the operator console (`/console`) reads, under `/ops`: a key's whole log, the keys in flight and those the
 * completer cannot resume, card payments that need an operator, projection lag, and per-route replay/409/422 rates. Keys and payments are the
 * caller's tenant's (every actor's); lag and rates describe the service.
 */
export const consoleRoutes: FastifyPluginAsyncZod = async (app) => {
  const startedAt = new Date().toISOString();

  app.get(
    '/keys',
    {
      config: { role: 'operator' },
      schema: {
        operationId: 'getKeyTimelines',
        summary: "A key's log as a timeline, by key or by the resource it created",
        description:
          'Keys of your tenant (any actor) with this `key`, or whose stored response names `resource`; each with ' +
          'every event of its key log as stored (type, time, data) and the stored response. Keys are kept at least 24 hours.',
        tags: ['console'],
        querystring: keyLookupQuery,
        response: { 200: keyLookupView, ...readProblems },
      },
    },
    async (request) => ({
      keys: await lookUpKeys(
        { pool: app.pg, eventStore: app.eventStore },
        request.principal.tenantId,
        request.query,
      ),
    }),
  );

  app.get(
    '/keys/in-flight',
    {
      config: { role: 'operator' },
      schema: {
        operationId: 'listKeysInFlight',
        summary: 'Keys of your tenant still in flight',
        description:
          'From the key table (a projection): the recovery point each reached, its holder and lease.',
        tags: ['console'],
        response: { 200: keysInFlightView, ...readProblems },
      },
    },
    async (request) => ({ keys: await listKeysInFlight(app.pg, request.principal.tenantId, new Date()) }),
  );

  const unresumableSource = () => ({
    pool: app.pg,
    engine: app.commandEngine,
    handlers: app.commandHandlers,
  });
  // Each count reads the key logs of the abandoned keys (normally none; at most the first 1,000).
  new Gauge({
    name: 'once_completer_unresumable_keys',
    help: 'Keys in flight with an ended lease that the completer passes over (no handler resumes their command): an operator must settle them',
    registers: [app.metricsRegistry],
    async collect() {
      try {
        this.set((await listUnresumableKeys(unresumableSource())).length);
      } catch (error) {
        // Before the key table is live there is nothing to count, and /metrics must still answer.
        app.log.debug({ err: error }, 'unresumable keys not counted');
      }
    },
  });

  app.get(
    '/keys/unresumable',
    {
      config: { role: 'operator' },
      schema: {
        operationId: 'listUnresumableKeys',
        summary: 'Keys of your tenant the completer cannot resume',
        description:
          'Keys in flight whose lease has ended and whose recorded command no handler of this api resumes (a ' +
          'command retired since the key was claimed): the completer passes over them, and they never expire. ' +
          'Counted service-wide in `once_completer_unresumable_keys`.',
        tags: ['console'],
        response: { 200: unresumableKeysView, ...readProblems },
      },
    },
    async (request) => ({ keys: await listUnresumableKeys(unresumableSource(), request.principal.tenantId) }),
  );

  app.get(
    '/payments/needing-attention',
    {
      config: { role: 'operator' },
      schema: {
        operationId: 'listOpsPaymentsNeedingAttention',
        summary: "Your tenant's card payments that need an operator",
        description:
          'Card payments whose gateway outcome stayed unknown through every attempt of the completer, from the ' +
          '`card_settlements` read model (as `GET /payments/needing-attention`); an operator resolves them with ' +
          '`POST /payments/:id/resolve`.',
        tags: ['console'],
        response: { 200: paymentsNeedingAttentionView, ...readProblems },
      },
    },
    async (request) => ({
      payments: await listConsolePaymentsNeedingAttention(app.pg, request.principal.tenantId),
    }),
  );

  app.get(
    '/projections',
    {
      config: { role: 'operator' },
      schema: {
        operationId: 'listProjectionLag',
        summary: 'How far each projection is behind the log',
        tags: ['console'],
        response: { 200: projectionsLagView, ...readProblems },
      },
    },
    async () => ({ projections: await measureProjectionLag({ pool: app.pg, eventStore: app.eventStore }) }),
  );

  app.get(
    '/routes',
    {
      config: { role: 'operator' },
      schema: {
        operationId: 'listRouteRates',
        summary: 'Replay, 409 and 422 rates per route since this process started',
        description: "From this process's own Prometheus counters (as `/metrics` shows them); service-wide.",
        tags: ['console'],
        response: { 200: routesRatesView, ...readProblems },
      },
    },
    async () => ({ since: startedAt, routes: await routeRates(app.metricsRegistry) }),
  );
};
