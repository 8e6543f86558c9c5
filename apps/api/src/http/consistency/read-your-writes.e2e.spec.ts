import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparePositions, parsePosition } from '@once/event-store';
import { silentLogger, startProjector } from '@once/projections';
import type { Projector } from '@once/projections';
import { allProjections } from '@once/read-models';
import { createTestDatabase } from '@once/testing';
import { createHttp, putDemoMenu, startTestApi, useTestApi } from '../../testing/index.js';
import type { TestTenant } from '../../testing/index.js';
import type {} from '../plugins/event-store.plugin.js';

// The projector runs here, under the test's control, so it can be stopped to make the read models lag for certain.
const readWaitMs = 300;
const env = useTestApi({ projector: 'external', readWaitMs });
let projector: Projector | undefined;
let other: TestTenant;

const startTheProjector = async () => {
  projector = await startProjector({
    pool: env.api.app.pg,
    store: env.api.app.eventStore,
    projections: allProjections,
    logger: silentLogger,
    pollIntervalMs: 20,
  });
};

beforeAll(async () => {
  await startTheProjector();
  // The bound is short: reads start once every projection leads (its read model exists and follows the log).
  for (let wait = 0; wait < 600; wait++) {
    if (Object.values(projector?.states() ?? {}).every((state) => state === 'leading')) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  other = await env.api.tenant();
  await putDemoMenu(env.api.url, env.tenant.ada);
});

afterAll(async () => {
  await projector?.stop();
});

const at = (position: string | null) => ({ 'once-min-position': position ?? '' });

const issueInvoice = async (total = 1000) => {
  const response = await env.http.post('/invoices', {
    apiKey: env.tenant.alice,
    key: randomUUID(),
    body: { currency: 'EUR', total },
  });
  expect(response.status).toBe(201);
  return { id: response.json<{ id: string }>().id, position: response.headers.get('once-position') };
};

describe('read your writes', () => {
  it('a read with the position of a write shows that write, on every read model', async () => {
    for (let round = 0; round < 5; round++) {
      const invoice = await issueInvoice(1000 + round);
      expect(invoice.position).toMatch(/^\d{20}:\d{20}$/);
      const read = await env.http.get(`/invoices/${invoice.id}`, env.tenant.alice, at(invoice.position));
      expect(read.status, read.text).toBe(200);
      expect(read.headers.get('once-stale')).toBeNull();
      expect(read.json()).toMatchObject({ total: 1000 + round, outstanding: 1000 + round, payments: [] });

      const key = randomUUID();
      const paid = await env.http.post(`/invoices/${invoice.id}/payments`, {
        apiKey: env.tenant.alice,
        key,
        body: { method: 'cash', amount: 400, currency: 'EUR' },
      });
      expect(paid.status).toBe(201);
      const paidAt = at(paid.headers.get('once-position'));
      expect((await env.http.get(`/invoices/${invoice.id}`, env.tenant.alice, paidAt)).json()).toMatchObject({
        paid: 400,
        outstanding: 600 + round,
      });
      expect(
        (await env.http.get(`/payments/${paid.json<{ id: string }>().id}`, env.tenant.alice, paidAt)).json(),
      ).toEqual(paid.json());
      expect((await env.http.get(`/idempotency-keys/${key}`, env.tenant.alice, paidAt)).json()).toMatchObject(
        {
          status: 'completed',
          responseStatus: 201,
        },
      );
    }

    const placed = await env.http.post('/orders', {
      apiKey: env.tenant.alice,
      key: randomUUID(),
      body: { currency: 'EUR', lines: [{ sku: 'espresso', quantity: 1 }] },
    });
    const orderId = placed.json<{ id: string }>().id;
    const served = await env.http.post(`/orders/${orderId}/serve`, {
      apiKey: env.tenant.alice,
      key: randomUUID(),
      body: {},
    });
    expect(
      (
        await env.http.get(`/orders/${orderId}`, env.tenant.alice, at(served.headers.get('once-position')))
      ).json(),
    ).toEqual(served.json());

    const opened = await env.http.post('/stock-counts', {
      apiKey: env.tenant.alice,
      key: randomUUID(),
      body: {},
    });
    const countId = opened.json<{ id: string }>().id;
    const line = await env.http.post(`/stock-counts/${countId}/lines`, {
      apiKey: env.tenant.alice,
      key: randomUUID(),
      body: { sku: 'oat-milk', countedQuantity: 12 },
    });
    expect(
      (
        await env.http.get(
          `/stock-counts/${countId}`,
          env.tenant.alice,
          at(line.headers.get('once-position')),
        )
      ).json(),
    ).toMatchObject({ lines: [{ sku: 'oat-milk', countedQuantity: 12 }] });
  });

  it("a replay's position is safe to wait for: a read with it sees the write, even one event per projector batch", async () => {
    // The read models lag for certain (projector stopped), so a read with a token from before the write would answer
    // at once without the invoice; a batch of one event ends inside the write unless pages end only at a write's end.
    const before = await issueInvoice(100);
    await projector?.stop();
    projector = undefined;
    const key = randomUUID();
    const body = { currency: 'EUR', total: 700 };
    const first = await env.http.post('/invoices', { apiKey: env.tenant.alice, key, body });
    expect(first.status).toBe(201);
    const replay = await env.http.post('/invoices', { apiKey: env.tenant.alice, key, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const firstPosition = first.headers.get('once-position');
    const replayPosition = replay.headers.get('once-position');
    if (firstPosition === null || replayPosition === null) throw new Error('a write without its position');
    // The key's completion, committed with the invoice (PostgreSQL: the same transaction, the first half).
    expect(replayPosition.split(':')[0]).toBe(firstPosition.split(':')[0]);
    expect(replayPosition <= firstPosition).toBe(true);
    const id = first.json<{ id: string }>().id;

    // Deterministically: a global reader in pages of one event that has reached the token has read the invoice's
    // events (PostgreSQL orders the key stream, where the completion is, before the invoice in their transaction).
    const token = parsePosition(replayPosition);
    let after = before.position === null ? undefined : parsePosition(before.position);
    if (token === undefined || after === undefined) throw new Error('an unreadable position');
    const seen: string[] = [];
    for (let reads = 0; reads < 50 && comparePositions(after, token) < 0; reads += 1) {
      const page = await env.api.app.eventStore.readAll({ after, maxCount: 1 });
      seen.push(...page.events.map((event) => event.stream));
      after = page.checkpoint ?? after;
    }
    expect(seen.some((stream) => stream.includes(id))).toBe(true);

    projector = await startProjector({
      pool: env.api.app.pg,
      store: env.api.app.eventStore,
      projections: allProjections,
      logger: silentLogger,
      pollIntervalMs: 20,
      batchSize: 1,
    });
    // The bound is short and a fresh projector first takes its leases: the first answer that is not stale counts.
    let read = await env.http.get(`/invoices/${id}`, env.tenant.alice, at(replayPosition));
    for (let tries = 0; tries < 50 && read.headers.get('once-stale') === 'true'; tries += 1) {
      read = await env.http.get(`/invoices/${id}`, env.tenant.alice, at(replayPosition));
    }
    expect(read.headers.get('once-stale')).toBeNull();
    expect(read.status).toBe(200);
    expect(read.json()).toMatchObject({ id, total: 700 });
    await projector.stop();
    await startTheProjector();
  });

  it('while the projector is stopped, a read waits the bound and answers what it has, marked stale; then catches up', async () => {
    const invoice = await issueInvoice(500);
    expect(
      (await env.http.get(`/invoices/${invoice.id}`, env.tenant.alice, at(invoice.position))).status,
    ).toBe(200);
    await projector?.stop();
    projector = undefined;

    const paid = await env.http.post(`/invoices/${invoice.id}/payments`, {
      apiKey: env.tenant.alice,
      key: randomUUID(),
      body: { method: 'cash', amount: 500, currency: 'EUR' },
    });
    const paidAt = at(paid.headers.get('once-position'));
    const stale = await env.http.get(`/invoices/${invoice.id}`, env.tenant.alice, paidAt);
    expect(stale.status).toBe(200);
    expect(stale.headers.get('once-stale')).toBe('true');
    expect(stale.json()).toMatchObject({ paid: 0, status: 'open' });

    const notYet = await env.http.get(
      `/payments/${paid.json<{ id: string }>().id}`,
      env.tenant.alice,
      paidAt,
    );
    expect(notYet.status).toBe(404);
    expect(notYet.headers.get('once-stale')).toBe('true');

    await startTheProjector();
    // The bound is short here and a fresh projector first takes its leases: ask until a read is no longer stale.
    await expect
      .poll(async () => {
        const read = await env.http.get(`/invoices/${invoice.id}`, env.tenant.alice, paidAt);
        return { stale: read.headers.get('once-stale'), body: read.json() };
      })
      .toMatchObject({ stale: null, body: { paid: 500, status: 'paid' } });
  });

  it('a position past the head of the log is a 400 problem; without one the read answers at once', async () => {
    const invoice = await issueInvoice(900);
    await env.http.get(`/invoices/${invoice.id}`, env.tenant.alice, at(invoice.position));
    const future = await env.http.get(
      `/invoices/${invoice.id}`,
      env.tenant.alice,
      at('99999999999999999999:00000000000000000000'),
    );
    expect(future.status).toBe(400);
    expect(future.json()).toMatchObject({ type: '/problems/position-ahead', status: 400 });

    const plain = await env.http.get(`/invoices/${invoice.id}`, env.tenant.alice, {});
    expect(plain.status).toBe(200);
    expect(plain.headers.get('once-stale')).toBeNull();
  });

  it('a malformed position is a 400 problem on every read route', async () => {
    const invoice = await issueInvoice();
    for (const path of [
      `/invoices/${invoice.id}`,
      `/payments/${randomUUID()}`,
      `/orders/${randomUUID()}`,
      `/stock-counts/${randomUUID()}`,
      `/idempotency-keys/${randomUUID()}`,
    ]) {
      for (const token of ['', 'latest', '12:', '1:2:3', '-1:5', '123456789012345678901:1']) {
        const response = await env.http.get(path, env.tenant.alice, at(token));
        expect(response.status, `${path} ${token}`).toBe(400);
        expect(response.headers.get('content-type')).toContain('application/problem+json');
        expect(response.json()).toMatchObject({ type: '/problems/invalid-position', status: 400 });
      }
    }
  });

  it("another tenant's ids are not found, whatever position it waits for", async () => {
    const invoice = await issueInvoice();
    const key = randomUUID();
    const paid = await env.http.post(`/invoices/${invoice.id}/payments`, {
      apiKey: env.tenant.alice,
      key,
      body: { method: 'cash', amount: 100, currency: 'EUR' },
    });
    const paidAt = at(paid.headers.get('once-position'));
    expect((await env.http.get(`/invoices/${invoice.id}`, env.tenant.alice, paidAt)).status).toBe(200);
    expect((await env.http.get(`/invoices/${invoice.id}`, other.alice, paidAt)).status).toBe(404);
    expect(
      (await env.http.get(`/payments/${paid.json<{ id: string }>().id}`, other.alice, paidAt)).status,
    ).toBe(404);
    expect((await env.http.get(`/idempotency-keys/${key}`, other.alice, paidAt)).status).toBe(404);
    expect((await env.http.get(`/idempotency-keys/${key}`, env.tenant.bob, paidAt)).status).toBe(404);
  });
});

describe('before an external projector has ever run', () => {
  it('reads are 503 with Retry-After (the read models do not exist yet), with or without a position', async () => {
    const fresh = await createTestDatabase();
    const lonely = await startTestApi({
      databaseUrl: fresh.connectionString,
      gatewayUrl: 'http://127.0.0.1:9',
      logger: false,
      projector: 'external',
    });
    try {
      const { alice } = await lonely.tenant();
      const client = createHttp(lonely.url);
      const issued = await client.post('/invoices', {
        apiKey: alice,
        key: randomUUID(),
        body: { currency: 'EUR', total: 1 },
      });
      expect(issued.status).toBe(201);
      for (const headers of [{}, at(issued.headers.get('once-position'))]) {
        const read = await client.get(`/invoices/${issued.json<{ id: string }>().id}`, alice, headers);
        expect(read.status).toBe(503);
        expect(read.headers.get('retry-after')).toBe('1');
        expect(read.json()).toMatchObject({ type: '/problems/service-unavailable' });
      }
    } finally {
      await lonely.close();
      await fresh.release();
    }
  });
});
