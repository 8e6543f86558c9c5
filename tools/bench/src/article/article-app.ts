import { createHash, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import pg from 'pg';
import type { PoolClient } from 'pg';
import { z } from 'zod';
import { canonicalize } from '@once/canonical-json';

/** Who sent a request: keys are scoped to tenant and actor. */
interface Principal {
  readonly tenantId: string;
  readonly actorId: string;
}

/** A response as stored with its key and replayed from it. */
interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
}

const paymentBody = z.strictObject({
  method: z.literal('cash'),
  amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  currency: z.string().regex(/^[A-Z]{3}$/),
});
const invoiceParams = z.strictObject({ id: z.uuid() });
const keyHeader = z.string().min(8).max(255);

const problem = (status: number, title: string): StoredResponse => ({ status, body: { status, title } });

/**
 * The article peer's api: `POST /invoices/:id/payments` with an Idempotency-Key, one transaction per request.
 * A new key is claimed by `INSERT … ON CONFLICT DO NOTHING`, the payment is a guarded `UPDATE` of the invoice's balance
 * and an `INSERT` of the payment row, and the key row is completed with the response, all in that transaction. A key
 * that exists is locked with `SELECT … FOR UPDATE` and either replays its response, or refuses a different request
 * (422) or one still in flight (409). Deterministic refusals (no such invoice, more than is outstanding) are stored
 * like successes, so a retry gets the same answer.
 *
 * @example
 * const app = await buildArticleApp({ databaseUrl, poolSize: 40, idleTimeoutMs: 300_000 });
 * await app.listen({ port: 3100 });
 */
export const buildArticleApp = async (settings: {
  readonly databaseUrl: string;
  readonly poolSize: number;
  /** How long a connection may stay idle before the pool closes it (ms; 0: never). */
  readonly idleTimeoutMs: number;
}): Promise<FastifyInstance> => {
  const pool = new pg.Pool({
    connectionString: settings.databaseUrl,
    max: settings.poolSize,
    idleTimeoutMillis: settings.idleTimeoutMs,
  });
  const principals = new Map<string, { principal: Principal | undefined; expiresAt: number }>();
  const app = Fastify({ logger: false });
  app.addHook('onClose', async () => pool.end());

  const principalOf = async (request: FastifyRequest): Promise<Principal | undefined> => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token === undefined) return undefined;
    const hash = createHash('sha256').update(token, 'utf8').digest();
    const cacheKey = hash.toString('base64');
    const cached = principals.get(cacheKey);
    if (cached && cached.expiresAt > Date.now()) return cached.principal;
    const { rows } = await pool.query<{ tenant_id: string; actor_id: string }>(
      'SELECT tenant_id, actor_id FROM api_keys WHERE key_hash = $1',
      [hash],
    );
    const principal = rows[0] ? { tenantId: rows[0].tenant_id, actorId: rows[0].actor_id } : undefined;
    principals.set(cacheKey, { principal, expiresAt: Date.now() + 10_000 });
    return principal;
  };

  const send = (reply: FastifyReply, response: StoredResponse, replayed = false): FastifyReply => {
    if (replayed) void reply.header('idempotent-replayed', 'true');
    return reply.code(response.status).send(response.body);
  };

  app.post('/invoices/:id/payments', async (request, reply) => {
    const principal = await principalOf(request);
    if (!principal) return send(reply, problem(401, 'unauthorized'));
    const key = keyHeader.safeParse(request.headers['idempotency-key']);
    const params = invoiceParams.safeParse(request.params);
    const body = paymentBody.safeParse(request.body);
    if (!key.success || !params.success || !body.success) return send(reply, problem(400, 'bad request'));
    const path = `/invoices/${params.data.id}/payments`;
    const requestHash = createHash('sha256').update(canonicalize(body.data), 'utf8').digest();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const claimed = await client.query(
        `INSERT INTO idempotency_keys (tenant_id, actor_id, key, method, path, request_hash, locked_until)
         VALUES ($1, $2, $3, 'POST', $4, $5, now() + interval '30 seconds')
         ON CONFLICT DO NOTHING
         RETURNING key`,
        [principal.tenantId, principal.actorId, key.data, path, requestHash],
      );
      if (claimed.rowCount === 0) {
        const existing = await replayOrRefuse(client, principal, key.data, path, requestHash);
        await client.query('COMMIT');
        return send(reply, existing.response, existing.replayed);
      }
      const response = await recordPayment(client, principal, params.data.id, body.data);
      await client.query(
        `UPDATE idempotency_keys
            SET status = 'completed', recovery_point = 'finished', response_status = $4, response_body = $5,
                locked_until = NULL, updated_at = now()
          WHERE tenant_id = $1 AND actor_id = $2 AND key = $3`,
        [principal.tenantId, principal.actorId, key.data, response.status, JSON.stringify(response.body)],
      );
      await client.query('COMMIT');
      return send(reply, response);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });

  return app;
};

/** The guarded balance update and the payment row; a refusal when the invoice is missing or would be overpaid. */
const recordPayment = async (
  client: PoolClient,
  principal: Principal,
  invoiceId: string,
  payment: z.infer<typeof paymentBody>,
): Promise<StoredResponse> => {
  const moved = await client.query(
    `UPDATE invoices SET paid = paid + $3
      WHERE tenant_id = $1 AND id = $2 AND currency = $4 AND paid + $3 <= total`,
    [principal.tenantId, invoiceId, payment.amount, payment.currency],
  );
  if (moved.rowCount === 0)
    return problem(422, 'no open invoice in that currency with that much outstanding');
  const paymentId = randomUUID();
  await client.query(
    `INSERT INTO payments (tenant_id, id, invoice_id, method, amount, currency) VALUES ($1, $2, $3, $4, $5, $6)`,
    [principal.tenantId, paymentId, invoiceId, payment.method, payment.amount, payment.currency],
  );
  return {
    status: 201,
    body: {
      id: paymentId,
      invoiceId,
      status: 'recorded',
      method: payment.method,
      amount: payment.amount,
      currency: payment.currency,
    },
  };
};

/** A key someone already claimed: locked until this transaction ends, then replayed or refused. */
const replayOrRefuse = async (
  client: PoolClient,
  principal: Principal,
  key: string,
  path: string,
  requestHash: Buffer,
): Promise<{ response: StoredResponse; replayed: boolean }> => {
  const { rows } = await client.query<{
    method: string;
    path: string;
    request_hash: Buffer;
    status: string;
    response_status: number | null;
    response_body: unknown;
  }>(
    `SELECT method, path, request_hash, status, response_status, response_body FROM idempotency_keys
      WHERE tenant_id = $1 AND actor_id = $2 AND key = $3
      FOR UPDATE`,
    [principal.tenantId, principal.actorId, key],
  );
  const row = rows[0];
  if (!row) return { response: problem(409, 'the key was released; retry'), replayed: false };
  if (row.method !== 'POST' || row.path !== path || !row.request_hash.equals(requestHash))
    return { response: problem(422, 'idempotency key reused with a different request'), replayed: false };
  if (row.status !== 'completed' || row.response_status === null)
    return { response: problem(409, 'a request with this key is in progress'), replayed: false };
  return { response: { status: row.response_status, body: row.response_body }, replayed: true };
};
