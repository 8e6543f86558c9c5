import { createHash, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { parseIdempotencyKeyHeader } from '@once/idempotency';
import { faultHeader, parseFaultHeader, refuseFaultControls } from '../faults/index.js';
import type { FaultAccess, FaultPlan, FaultTarget, GatewayFault } from '../faults/index.js';
import type { WebhookSender } from '../webhooks/index.js';
import { chargeRequestSchema, chargeSchema } from './charge.js';
import type { ChargeLedger } from './charge-ledger.js';

export interface ChargesRoutesOptions {
  readonly ledger: ChargeLedger;
  readonly faults: FaultPlan;
  /** Who may name a fault in the `gateway-fault` header. */
  readonly faultAccess: FaultAccess;
  readonly webhooks: WebhookSender | undefined;
  readonly now: () => Date;
  /** The bearer secret every call needs (`Authorization: Bearer <token>`); none needed when omitted. */
  readonly apiToken?: string | undefined;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
const carriesToken = (request: FastifyRequest, token: string): boolean => {
  const header = request.headers.authorization;
  return typeof header === 'string' && timingSafeEqual(digest(header), digest(`Bearer ${token}`));
};

const problem = (reply: FastifyReply, status: number, type: string, detail: string) =>
  reply
    .code(status)
    .type('application/problem+json')
    .send({ type: `/problems/${type}`, title: type, status, detail });

const merchantOf = (request: FastifyRequest): string => {
  const merchant = request.headers['gateway-merchant'];
  return typeof merchant === 'string' && merchant.length > 0 ? merchant : 'default';
};

/** The fault for this call: one named in the request's own header wins over one armed in the plan. */
const faultFor = (
  request: FastifyRequest,
  faults: FaultPlan,
  target: FaultTarget,
  metadata?: Readonly<Record<string, string>>,
): GatewayFault | undefined => {
  const header = request.headers[faultHeader];
  return (typeof header === 'string' ? parseFaultHeader(header) : undefined) ?? faults.take(target, metadata);
};

/** Keeps the connection open without answering until the caller gives up (or the server closes). */
const hang = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
  reply.hijack();
  if (request.raw.socket.destroyed) return;
  await new Promise<void>((resolve) => request.raw.socket.once('close', () => resolve()));
};

/** `POST /charges` (with the gateway's own `Idempotency-Key`) and `GET /charges?reference=…` (the inquiry call). */
export const chargesRoutes: FastifyPluginAsyncZod<ChargesRoutesOptions> = async (
  app,
  { ledger, faults, faultAccess, webhooks, now, apiToken },
) => {
  app.addHook('onRequest', async (request, reply) => {
    if (apiToken !== undefined && !carriesToken(request, apiToken)) {
      return problem(reply, 401, 'unauthorized', 'send Authorization: Bearer <the gateway API token>');
    }
    if (request.headers[faultHeader] !== undefined) return refuseFaultControls(faultAccess, request, reply);
    return undefined;
  });
  app.post(
    '/',
    { schema: { body: chargeRequestSchema, response: { 201: chargeSchema } } },
    async (request, reply) => {
      // The same header rule as the Once API: an sf-string or a bare token, 8–255 visible ASCII characters.
      const header = parseIdempotencyKeyHeader(request.raw.headersDistinct['idempotency-key']);
      if (!header.ok) return problem(reply, 400, header.problem, `Idempotency-Key: ${header.reason}`);
      const { key } = header;
      const fault = faultFor(request, faults, 'charge', request.body.metadata);
      if (fault?.kind === 'latency') await sleep(fault.ms);
      if (fault?.kind === 'error')
        return problem(reply, fault.status, 'gateway-unavailable', 'injected fault');
      if (fault?.kind === 'refuse')
        return problem(reply, fault.status, 'card-refused', 'injected fault: the card is refused outright');
      if (fault?.kind === 'hang') return hang(request, reply);

      const outcome = await ledger.charge({
        merchant: merchantOf(request),
        key,
        request: request.body,
        now: now(),
      });
      if (outcome.kind === 'key-reused') {
        return problem(reply, 422, 'idempotency-key-reused', 'this key was used for a different charge');
      }
      if (outcome.kind === 'in-flight') {
        void reply.header('retry-after', String(outcome.retryAfterSeconds));
        return problem(reply, 409, 'idempotency-key-in-flight', 'a charge with this key is still running');
      }
      if (outcome.kind === 'created') webhooks?.chargeRecorded(outcome.charge);
      request.log.info({ chargeId: outcome.charge.id, outcome: outcome.kind, key }, 'charge');
      if (fault?.kind === 'lost-response') {
        reply.hijack();
        request.raw.socket.destroy();
        return reply;
      }
      if (outcome.kind === 'replayed') void reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(outcome.charge);
    },
  );

  app.get(
    '/',
    {
      schema: {
        querystring: z.strictObject({ reference: z.string().min(1).max(200) }),
        response: { 200: z.object({ charges: z.array(chargeSchema) }) },
      },
    },
    async (request, reply) => {
      const fault = faultFor(request, faults, 'inquiry');
      if (fault?.kind === 'latency') await sleep(fault.ms);
      if (fault?.kind === 'error')
        return problem(reply, fault.status, 'gateway-unavailable', 'injected fault');
      if (fault?.kind === 'refuse')
        return problem(reply, fault.status, 'card-refused', 'injected fault: the card is refused outright');
      if (fault?.kind === 'hang' || fault?.kind === 'lost-response') return hang(request, reply);
      return { charges: [...(await ledger.findByReference(merchantOf(request), request.query.reference))] };
    },
  );
};
