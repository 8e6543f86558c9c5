import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { fingerprint } from '@once/canonical-json';
import { startWebhookReceiver } from '@once/outbox/testing';
import type { WebhookReceiver } from '@once/outbox/testing';
import { shortGatewayTimings, useGatewayTestApi } from './testing/index.js';
import type { TextResponse } from './testing/index.js';

// Every command route once, then every table of the database and every log line, searched for a webhook secret
// (`whsec_`, or its key material without the prefix), for the card token the payments were made with, and for the
// credentials the api itself holds: the database password and the gateway's bearer secret.

const logLines: string[] = [];
const env = useGatewayTestApi({
  ...shortGatewayTimings,
  cardSettlementRetryPolicy: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 200 },
  webhookUrlPolicy: { allowHttp: true },
  logger: {
    level: 'trace',
    stream: new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  },
});
const cardToken = `tok_scan_${randomUUID()}`;
const secrets: string[] = [];
/** The plain SHA-256 fingerprints of the requests that carried the card token: a brute-force oracle if kept. */
const plainFingerprints: string[] = [];
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secrets: () => secrets });
});

afterAll(async () => {
  await receiver?.close();
});

/** The command routes run, as the OpenAPI document names them (`POST /invoices/{id}/payments`). */
const ran = new Set<string>();
const command = async (
  method: 'POST' | 'PUT' | 'DELETE',
  route: string,
  path: string,
  options: { readonly body?: unknown; readonly key?: string; readonly apiKey?: string } = {},
): Promise<TextResponse> => {
  ran.add(`${method} ${route}`);
  const headers = {
    authorization: `Bearer ${options.apiKey ?? env.tenant.ada}`,
    'idempotency-key': options.key ?? randomUUID(),
    ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  const response = await fetch(`${env.api.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
};

/** Every command route of the app: the operations whose request takes an `Idempotency-Key` header. */
const commandRoutes = async (): Promise<readonly string[]> => {
  const document = (await (await fetch(`${env.api.url}/docs/json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) =>
        (operation.parameters ?? []).some(
          (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
        ),
      )
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
};

/** Rows of every table of every schema the app uses holding `needle` (any column, bytea included), by table. */
const tablesHolding = async (pool: Pool, needle: string): Promise<Record<string, number>> => {
  const { rows: tables } = await pool.query<{ schema: string; name: string; bytea: string[] }>(
    `SELECT t.table_schema AS schema, t.table_name AS name,
            coalesce(array_agg(c.column_name::text) FILTER (WHERE c.data_type = 'bytea'), '{}') AS bytea
       FROM information_schema.tables t
       JOIN information_schema.columns c USING (table_schema, table_name)
      WHERE t.table_type = 'BASE TABLE' AND t.table_schema NOT IN ('pg_catalog', 'information_schema')
      GROUP BY t.table_schema, t.table_name`,
  );
  const found: Record<string, number> = {};
  for (const table of tables) {
    const relation = `${JSON.stringify(table.schema)}.${JSON.stringify(table.name)}`;
    const inBytea = table.bytea.map(
      (column) => `position(convert_to($1, 'UTF8') in ${JSON.stringify(column)}) > 0`,
    );
    const { rows } = await pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ${relation} AS row
        WHERE strpos(row::text, $1) > 0 ${inBytea.map((test) => `OR ${test}`).join(' ')}`,
      [needle],
    );
    const count = rows[0]?.count ?? 0;
    if (count > 0) found[`${table.schema}.${table.name}`] = count;
  }
  return found;
};

/** A `whsec_` secret's key material, as it would read without its prefix. */
const keyMaterial = (secret: string): string => secret.slice('whsec_'.length);

describe('secrets at rest', () => {
  let endpointId: string;
  let registration: TextResponse;
  let registrationKey: string;

  it('runs every command route: endpoints, invoices paid by cash and card, a card payment an operator resolves, the menu, orders, stock counts', async () => {
    registrationKey = randomUUID();
    const endpointBody = { url: receiver.url, eventTypes: ['OrderPlaced', 'OrderServed', 'InvoiceIssued'] };
    registration = await command('POST', '/webhook-endpoints', '/webhook-endpoints', {
      body: endpointBody,
      key: registrationKey,
    });
    expect(registration.status).toBe(201);
    const endpoint = registration.json<{ id: string; secret: string }>();
    expect(endpoint.secret).toMatch(/^whsec_/);
    secrets.push(endpoint.secret);
    endpointId = endpoint.id;

    const rotated = await command(
      'POST',
      '/webhook-endpoints/{id}/rotate-secret',
      `/webhook-endpoints/${endpointId}/rotate-secret`,
      {
        body: { gracePeriodSeconds: 3600 },
      },
    );
    expect(rotated.status).toBe(200);
    secrets.unshift(rotated.json<{ secret: string }>().secret);

    const issued = await command('POST', '/invoices', '/invoices', {
      body: { currency: 'EUR', lines: [{ description: 'Flat white', quantity: 2, unitPrice: 1000 }] },
    });
    expect(issued.status).toBe(201);
    const invoiceId = issued.json<{ id: string }>().id;
    const payments = `/invoices/${invoiceId}/payments`;
    const cash = { method: 'cash', amount: 200, currency: 'EUR' };
    expect((await command('POST', '/invoices/{id}/payments', payments, { body: cash })).status).toBe(201);
    const card = { method: 'card', amount: 300, currency: 'EUR', cardToken };
    plainFingerprints.push(
      fingerprint({ method: 'POST', route: '/invoices/:id/payments', params: { id: invoiceId }, body: card }),
    );
    const cardKey = randomUUID();
    const paid = await command('POST', '/invoices/{id}/payments', payments, { body: card, key: cardKey });
    expect(paid.status).toBe(201);
    const replayed = await command('POST', '/invoices/{id}/payments', payments, { body: card, key: cardKey });
    expect(replayed.text).toBe(paid.text);

    // A charge whose outcome stays unknown: the completer resumes it from the key log (the token's reference only)
    // until it needs an operator, who resolves it.
    await env.arm('charge', { kind: 'error', status: 502 });
    const unknownKey = randomUUID();
    const unknown = await command('POST', '/invoices/{id}/payments', payments, {
      body: card,
      key: unknownKey,
    });
    expect(unknown.status).toBe(503);
    await expect
      .poll(async () => (await env.http.get(`/idempotency-keys/${unknownKey}`, env.tenant.ada)).json(), {
        timeout: 30_000,
      })
      .toMatchObject({ status: 'completed', responseStatus: 424 });
    const attention = await command('POST', '/invoices/{id}/payments', payments, {
      body: card,
      key: unknownKey,
    });
    const { paymentId } = attention.json<{ paymentId: string }>();
    const resolved = await command('POST', '/payments/{id}/resolve', `/payments/${paymentId}/resolve`, {
      apiKey: env.tenant.olga,
      body: { action: 'mark-declined', note: 'checked the terminal' },
    });
    expect(resolved.status).toBe(200);

    const menuItem = { name: 'Flat white', unitPrice: 350, currency: 'EUR' };
    expect(
      (await command('PUT', '/menu/items/{sku}', '/menu/items/flat-white', { body: menuItem })).status,
    ).toBe(200);
    // The till showed an older price: the order is held for review at the menu's total, and approved below.
    const placed = await command('POST', '/orders', '/orders', {
      body: { currency: 'EUR', lines: [{ sku: 'flat-white', quantity: 1 }], expectedTotal: 300 },
    });
    expect(placed.status).toBe(201);
    const orderId = placed.json<{ id: string }>().id;
    for (const action of ['approve', 'serve', 'complete']) {
      const answer = await command('POST', `/orders/{id}/${action}`, `/orders/${orderId}/${action}`, {
        body: {},
      });
      expect(answer.status).toBeLessThan(500);
    }

    expect((await command('DELETE', '/menu/items/{sku}', '/menu/items/flat-white')).status).toBe(200);

    const opened = await command('POST', '/stock-counts', '/stock-counts', { body: {} });
    expect(opened.status).toBe(201);
    const countId = opened.json<{ id: string }>().id;
    const line = { sku: 'beans-1kg', countedQuantity: 12 };
    expect(
      (await command('POST', '/stock-counts/{id}/lines', `/stock-counts/${countId}/lines`, { body: line }))
        .status,
    ).toBe(200);
    expect(
      (await command('POST', '/stock-counts/{id}/post', `/stock-counts/${countId}/post`, { body: {} }))
        .status,
    ).toBe(200);

    // The relay unsealed the current secret to sign with: the receiver verified a delivery with it.
    await expect
      .poll(() => receiver.requests.some((request) => request.body.includes(orderId)), { timeout: 15_000 })
      .toBe(true);

    const endpointPath = `/webhook-endpoints/${endpointId}`;
    for (const action of ['disable', 'enable']) {
      const answer = await command('POST', `/webhook-endpoints/{id}/${action}`, `${endpointPath}/${action}`, {
        body: {},
      });
      expect(answer.status).toBe(200);
    }
    expect((await command('DELETE', '/webhook-endpoints/{id}', endpointPath)).status).toBe(200);

    const routes = await commandRoutes();
    expect(routes).toContain('POST /invoices/{id}/payments');
    expect(routes.filter((route) => !ran.has(route))).toEqual([]);
  });

  it('answers a replay of the registration with the original secret, byte for byte', async () => {
    const replay = await command('POST', '/webhook-endpoints', '/webhook-endpoints', {
      body: { url: receiver.url, eventTypes: ['OrderPlaced', 'OrderServed', 'InvoiceIssued'] },
      key: registrationKey,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(registration.text);
    expect(replay.json<{ secret: string }>().secret).toBe(secrets[1]);
  });

  it('shows the registration in /ops/keys with its secret redacted', async () => {
    const lookUp = async () =>
      // An operator's key, as the console uses.
      (await env.http.get(`/ops/keys?resource=${endpointId}`, env.tenant.olga)).json<{
        keys: { key: string; response?: { body: string }; events: unknown[] }[];
      }>().keys;
    await expect.poll(async () => (await lookUp()).map((key) => key.key)).toContain(registrationKey);
    const keys = await lookUp();
    const registered = keys.find((key) => key.key === registrationKey);
    expect(JSON.parse(registered?.response?.body ?? '{}')).toMatchObject({
      id: endpointId,
      secret: '[redacted]',
    });
    const shown = JSON.stringify(keys);
    expect(shown).not.toContain('whsec_');
    expect(shown).not.toContain('sealed:v1:');
    for (const secret of secrets) expect(shown).not.toContain(keyMaterial(secret));
  });

  it('keeps no webhook secret, card token, database password or gateway token in any table or log line', async () => {
    // The read models and the relay have caught up: the deleted endpoint and every key are in their tables.
    await expect
      .poll(
        async () =>
          (
            await env.db.pool.query(
              `SELECT 1 FROM webhook_endpoints WHERE endpoint_id = $1 AND status = 'deleted'`,
              [endpointId],
            )
          ).rowCount,
      )
      .toBe(1);
    await expect
      .poll(
        async () =>
          (await env.db.pool.query(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [registrationKey]))
            .rowCount,
      )
      .toBe(1);

    // The scan finds what is there: the endpoint's id is in the log, the endpoints table and the key table.
    expect(Object.keys(await tablesHolding(env.db.pool, endpointId)).length).toBeGreaterThanOrEqual(3);
    const databasePassword = decodeURIComponent(new URL(env.db.connectionString).password);
    expect(databasePassword).not.toBe('');
    const needles = [
      'whsec_',
      cardToken,
      ...secrets.map(keyMaterial),
      ...plainFingerprints,
      databasePassword,
      env.gatewayApiToken,
    ];
    for (const needle of needles) {
      expect({ needle, tables: await tablesHolding(env.db.pool, needle) }).toEqual({ needle, tables: {} });
    }
    expect(logLines.length).toBeGreaterThan(0);
    for (const needle of needles) expect(logLines.filter((line) => line.includes(needle))).toEqual([]);
  });
});
