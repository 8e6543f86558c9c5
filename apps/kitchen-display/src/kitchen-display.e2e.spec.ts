import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore } from '@once/event-store/postgres';
import type { EventStore } from '@once/event-store';
import { startWebhookRelay } from '@once/outbox';
import type { WebhookRelay } from '@once/outbox';
import { registerEndpointInLog } from '@once/outbox/testing';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import {
  createSecretsKeyring,
  generateSecretsKey,
  generateWebhookSecret,
  parseSecretsKeys,
  webhookHeaders,
} from '@once/webhooks';
import { createKitchenDisplay } from './kitchen-display.js';
import { migrateKitchen } from './kitchen-tickets.js';

const secret = generateWebhookSecret();
const keyring = createSecretsKeyring(parseSecretsKeys(generateSecretsKey()));
let db: TestDatabase;
let store: EventStore;
let server: Server;
let relay: WebhookRelay;
let url: string;

beforeAll(async () => {
  db = await createTestDatabase();
  store = createPostgresEventStore(db.pool);
  await migrateKitchen(db.pool);
  server = createKitchenDisplay({ pool: db.pool, secrets: () => [secret] });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  relay = await startWebhookRelay({
    pool: db.pool,
    store,
    secrets: keyring,
    urlPolicy: { allowHttp: true },
    pollIntervalMs: 20,
  });
});

afterAll(async () => {
  await relay?.stop();
  server?.closeAllConnections();
  server?.close();
  await store?.close();
  await db?.release();
});

const post = (body: string, headers: Record<string, string>) =>
  fetch(`${url}/webhooks`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
const signed = (id: string, body: string, timestamp = Math.floor(Date.now() / 1000), key = secret) =>
  post(body, { ...webhookHeaders([key], { id, timestamp, body }) });
const tickets = async (status = 'to-prepare') =>
  ((await (await fetch(`${url}/tickets?status=${status}`)).json()) as { tickets: { orderId: string }[] })
    .tickets;
const placed = (tenantId: string, orderId: string) =>
  JSON.stringify({
    type: 'OrderPlaced',
    timestamp: new Date().toISOString(),
    data: {
      tenantId,
      orderId,
      lines: [{ sku: 'flat-white', quantity: 2, unitPrice: 350 }],
      placedAt: new Date().toISOString(),
    },
  });

describe('the kitchen display', () => {
  it('shows the orders to prepare, fed by the relay, and drops them once served', async () => {
    const tenantId = freshTenantId();
    await registerEndpointInLog(store, keyring, {
      tenantId,
      url: `${url}/webhooks`,
      secret,
      eventTypes: ['OrderPlaced', 'OrderServed'],
    });
    const orderId = randomUUID();
    const data = {
      tenantId,
      orderId,
      lines: [{ sku: 'cortado', quantity: 1, unitPrice: 300 }],
      placedAt: new Date().toISOString(),
    };
    await store.appendToStream(
      `order-${tenantId}-${orderId}`,
      [{ id: randomUUID(), type: 'OrderPlaced', data }],
      {
        expectedRevision: 'no_stream',
      },
    );
    await expect
      .poll(async () => (await tickets()).map((ticket) => ticket.orderId), { timeout: 15_000 })
      .toContain(orderId);
    expect(await (await fetch(url)).text()).toContain('cortado');
    await store.appendToStream(
      `order-${tenantId}-${orderId}`,
      [
        {
          id: randomUUID(),
          type: 'OrderServed',
          data: { tenantId, orderId, servedAt: new Date().toISOString() },
        },
      ],
      { expectedRevision: 0n },
    );
    await expect
      .poll(async () => (await tickets('served')).map((ticket) => ticket.orderId), { timeout: 15_000 })
      .toContain(orderId);
    expect((await tickets()).map((ticket) => ticket.orderId)).not.toContain(orderId);
  });

  it('ignores a replayed webhook-id: applied once, answered 200 duplicate', async () => {
    const orderId = randomUUID();
    const id = randomUUID();
    const body = placed(freshTenantId(), orderId);
    expect((await signed(id, body)).status).toBe(204);
    const again = await signed(id, body);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ outcome: 'duplicate' });
    expect((await tickets()).filter((ticket) => ticket.orderId === orderId)).toHaveLength(1);
  });

  it('refuses a bad signature, an old or future timestamp and missing headers with 401 and the reason, applying nothing', async () => {
    const orderId = randomUUID();
    const body = placed(freshTenantId(), orderId);
    const reasonOf = async (response: Response) => [
      response.status,
      ((await response.json()) as { reason: string }).reason,
    ];
    expect(await reasonOf(await signed(randomUUID(), body, undefined, generateWebhookSecret()))).toEqual([
      401,
      'invalid-signature',
    ]);
    expect(await reasonOf(await signed(randomUUID(), body, Math.floor(Date.now() / 1000) - 600))).toEqual([
      401,
      'timestamp-too-old',
    ]);
    expect(await reasonOf(await signed(randomUUID(), body, Math.floor(Date.now() / 1000) + 600))).toEqual([
      401,
      'timestamp-too-new',
    ]);
    expect(await reasonOf(await post(body, { 'webhook-id': randomUUID() }))).toEqual([
      401,
      'missing-headers',
    ]);
    const tampered = await post(body.replace('"quantity":2', '"quantity":20'), {
      ...webhookHeaders([secret], { id: randomUUID(), timestamp: Math.floor(Date.now() / 1000), body }),
    });
    expect(await reasonOf(tampered)).toEqual([401, 'invalid-signature']);
    expect((await tickets()).map((ticket) => ticket.orderId)).not.toContain(orderId);
  });
});
