import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { problemView } from '../commands/command-schemas.js';
import {
  keyLookupQuery,
  keyLookupView,
  keysInFlightView,
  paymentsNeedingAttentionView,
  projectionsLagView,
  routesRatesView,
} from './console.schemas.js';
import { listKeysInFlight, lookUpKeys } from './key-timeline.js';
import { listConsolePaymentsNeedingAttention } from './payments-needing-attention.js';
import { measureProjectionLag } from './projection-lag.js';
import { routeRates } from './route-rates.js';

const readProblems = { 400: problemView, 401: problemView };

/**
 * What the operator console (`/console`) reads, under `/ops`: a key's whole log, the keys in flight, card payments
 * that need an operator, projection lag, and per-route replay/409/422 rates. Keys and payments are the
 * caller's tenant's (every actor's); lag and rates describe the service.
 */
export const consoleRoutes: FastifyPluginAsyncZod = async (app) => {
  const startedAt = new Date().toISOString();

  app.get(
    '/keys',
    {
      config: { role: 'operator' },
      schema: {
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
        summary: 'Keys of your tenant still in flight',
        description:
          'From the key table (a projection): the recovery point each reached, its holder and lease.',
        tags: ['console'],
        response: { 200: keysInFlightView, ...readProblems },
      },
    },
    async (request) => ({ keys: await listKeysInFlight(app.pg, request.principal.tenantId, new Date()) }),
  );

  app.get(
    '/payments/needing-attention',
    {
      config: { role: 'operator' },
      schema: {
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
        summary: 'Replay, 409 and 422 rates per route since this process started',
        description: "From this process's own Prometheus counters (as `/metrics` shows them); service-wide.",
        tags: ['console'],
        response: { 200: routesRatesView, ...readProblems },
      },
    },
    async () => ({ since: startedAt, routes: await routeRates(app.metricsRegistry) }),
  );
};
