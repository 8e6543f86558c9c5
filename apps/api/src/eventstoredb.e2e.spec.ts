import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { InvoiceId, TenantId } from '@once/domain';
import { invoiceStream } from '@once/domain';
import { createEventStoreDbEventStore } from '@once/event-store/eventstoredb';
import { startEventStoreDb } from '@once/event-store/testing';
import type { EventStoreTarget } from '@once/event-store/testing';
import { generateSecretsKey } from '@once/webhooks';
import { createApiKeyStore } from './http/auth/index.js';
import {
  cardPayment,
  cashPayment,
  createHttp,
  expectCardCapturedOnce,
  expectConcurrentDuplicatesOnce,
  expectKeyReuseRefused,
  invoiceCalls,
  shortGatewayTimings,
  startApiProcess,
  useGatewayTestApi,
} from './testing/index.js';

// The api in EVENTSTORE_URL mode (streams in EventStoreDB, every command phased), through the real client over a
// socket: EVENTSTORE_URL when set, else an EventStoreDB container, else the wire-level test server.

const eventStore: EventStoreTarget = await startEventStoreDb();
// Registered before the api's own teardown, so it runs after it: the api closes its client first.
afterAll(async () => {
  await eventStore.stop();
});
const env = useGatewayTestApi({
  eventStoreUrl: eventStore.connectionString,
  ...shortGatewayTimings,
  // Short enough for the completer test to take a quiet key over, long enough that a holder on a loaded machine
  // keeps its lease through the phased protocol's round trips (500 ms let concurrent duplicates take it over: 503).
  leaseMs: 5_000,
  // Scavenges on the server, started often enough for a test to see one.
  operations: { metricsListener: { port: 0 }, eventStoreScavenger: { intervalMs: 250 } },
});

const calls = () => invoiceCalls(env.http, env.tenant.alice, env.gateway.url, env.gatewayApiToken);

describe('EventStoreDB mode', () => {
  it('reports health after checking EventStoreDB too', async () => {
    expect((await env.http.get('/health')).json()).toMatchObject({
      status: 'ok',
      checks: { eventStore: 'ok' },
    });
  });

  it('starts scavenges on EventStoreDB on its schedule, and /metrics tells when the last one started', async () => {
    const lastStarted = async () => {
      const metrics = await (await fetch(env.api.app.metricsUrl() as string)).text();
      const line = metrics
        .split('\n')
        .find((text) => text.startsWith('once_eventstore_last_scavenge_timestamp_seconds '));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const before = Date.now() / 1000;
    for (let attempt = 0; (await lastStarted()) < before && attempt < 100; attempt++) await sleep(100);
    expect(await lastStarted()).toBeGreaterThanOrEqual(before);
  });

  it('pays cash once and replays it byte for byte; the invoice stream is in EventStoreDB', async () => {
    const invoiceId = await calls().issueInvoice();
    const key = randomUUID();
    const first = await calls().pay(invoiceId, key, cashPayment(400));
    const again = await calls().pay(invoiceId, key, cashPayment(400));
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await calls().invoice(invoiceId)).toMatchObject({ paid: 400, payments: [expect.anything()] });
    const reader = createEventStoreDbEventStore(eventStore.connectionString);
    const events = await reader.readStream(
      invoiceStream(env.tenant.tenantId as TenantId, invoiceId as InvoiceId),
    );
    await reader.close();
    expect(events.map((event) => event.type)).toContain('PaymentRecorded');
  });

  it('refuses the same key with a different body (422) and does nothing', async () => {
    await expectKeyReuseRefused(calls());
  });

  it('turns 10 concurrent duplicates into one payment, answering only 201 or 409', async () => {
    await expectConcurrentDuplicatesOnce(calls());
  });

  it('captures a card payment once and replays it', async () => {
    await expectCardCapturedOnce(calls());
  });

  it('the completer finishes a card payment whose client never came back', async () => {
    const invoiceId = await calls().issueInvoice();
    await env.arm('charge', { kind: 'lost-response' });
    const key = randomUUID();
    expect((await calls().pay(invoiceId, key, cardPayment(800))).status).toBe(503);
    await expect
      .poll(async () => (await env.http.get(`/idempotency-keys/${key}`, env.tenant.alice)).json(), {
        timeout: 20_000,
      })
      .toMatchObject({ status: 'completed', responseStatus: 201 });
    const late = await calls().pay(invoiceId, key, cardPayment(800));
    expect(late.status).toBe(201);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    expect(await calls().charges(late.json<{ id: string }>().id)).toHaveLength(1);
    expect(await calls().invoice(invoiceId)).toMatchObject({ paid: 800, reserved: 0 });
  });

  it('killed after the commit and before the response, the retry after a restart gets the stored answer', async () => {
    const scope = { tenantId: randomUUID(), actorId: randomUUID() };
    const apiKey = await createApiKeyStore(env.db.pool).create(scope);
    const processEnv = {
      DATABASE_URL: env.db.connectionString,
      EVENTSTORE_URL: eventStore.connectionString,
      ONCE_GATEWAY_URL: env.gateway.url,
      ONCE_GATEWAY_API_TOKEN: env.gatewayApiToken,
      ONCE_LEASE_MS: '1000',
      ONCE_SECRETS_KEY: generateSecretsKey(),
    };
    const crashing = await startApiProcess({ ...processEnv, ONCE_FAULT: 'after-complete@2' });
    try {
      const invoiceId = (
        await createHttp(crashing.url).post('/invoices', {
          apiKey,
          key: randomUUID(),
          body: { currency: 'EUR', total: 5000 },
        })
      ).json<{ id: string }>().id;
      const key = randomUUID();
      const body = cashPayment(1200);
      await expect(
        createHttp(crashing.url).post(`/invoices/${invoiceId}/payments`, { apiKey, key, body }),
      ).rejects.toThrow();
      expect((await crashing.exited).signal).toBe('SIGKILL');

      const restarted = await startApiProcess(processEnv);
      try {
        const restartedHttp = createHttp(restarted.url);
        let retried = await restartedHttp.post(`/invoices/${invoiceId}/payments`, { apiKey, key, body });
        for (let attempt = 0; retried.status === 409 && attempt < 100; attempt++) {
          await sleep(200);
          retried = await restartedHttp.post(`/invoices/${invoiceId}/payments`, { apiKey, key, body });
        }
        expect(retried.status).toBe(201);
        expect(retried.headers.get('idempotent-replayed')).toBe('true');
        const paid = (await restartedHttp.get(`/invoices/${invoiceId}`, apiKey)).json<{
          paid: number;
          payments: unknown[];
        }>();
        expect(paid).toMatchObject({ paid: 1200, payments: [retried.json()] });
      } finally {
        await restarted.stop();
      }
    } finally {
      await crashing.stop();
    }
  });
});
