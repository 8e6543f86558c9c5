import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { deriveId } from '@once/idempotency';
import { createApiKeyStore } from './http/auth/index.js';
import { createHttp, useApiProcesses } from './testing/index.js';
import type { ApiProcess } from './testing/index.js';

// The api runs as a child process that kills itself (SIGKILL) at an armed fault point: after the effect is
// committed and before any response byte. The gateway simulator is its own process, so it outlives the crash.

const env = useApiProcesses();
const startApi = (fault?: string) => env.startApi(fault ? { fault } : {});

const scope = { tenantId: randomUUID(), actorId: randomUUID() };
let apiKey: string;

const setUp = async (api: ApiProcess) => {
  apiKey ??= await createApiKeyStore(env.db.pool).create(scope);
  const http = createHttp(api.url);
  const invoice = await http.post('/invoices', {
    apiKey,
    key: randomUUID(),
    body: { currency: 'EUR', total: 5000 },
  });
  expect(invoice.status).toBe(201);
  return invoice.json<{ id: string }>().id;
};

/** Retries like a client: until the key is no longer in flight (the dead holder's lease expires). */
const retryUntilSettled = async <T extends { status: number }>(send: () => Promise<T>): Promise<T> => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const answer = await send();
    if (answer.status !== 409) return answer;
    await sleep(200);
  }
  throw new Error('the key stayed in flight');
};

describe('crash between the effect and the response', () => {
  it('cash: the retry after a restart gets the stored response, and there is one payment', async () => {
    const crashing = await startApi('after-complete@2');
    const invoiceId = await setUp(crashing);
    const key = randomUUID();
    const body = { method: 'cash', amount: 1200, currency: 'EUR' };
    await expect(
      createHttp(crashing.url).post(`/invoices/${invoiceId}/payments`, { apiKey, key, body }),
    ).rejects.toThrow();
    expect((await crashing.exited).signal).toBe('SIGKILL');

    const restarted = await startApi();
    const http = createHttp(restarted.url);
    const retried = await http.post(`/invoices/${invoiceId}/payments`, { apiKey, key, body });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const invoice = (await http.get(`/invoices/${invoiceId}`, apiKey)).json<{
      paid: number;
      payments: unknown[];
    }>();
    expect(invoice.paid).toBe(1200);
    expect(invoice.payments).toEqual([retried.json()]);
    await restarted.stop();
    expect(await restarted.exited).toEqual({ code: 0, signal: null });
  });

  it('card: killed after the gateway charged, the resumed request asks the gateway and never charges twice', async () => {
    const crashing = await startApi('after-gateway-charge');
    const invoiceId = await setUp(crashing);
    const key = randomUUID();
    const body = { method: 'card', amount: 3000, currency: 'EUR', cardToken: 'tok_visa' };
    await expect(
      createHttp(crashing.url).post(`/invoices/${invoiceId}/payments`, { apiKey, key, body }),
    ).rejects.toThrow();
    expect((await crashing.exited).signal).toBe('SIGKILL');

    const paymentId = deriveId(scope, key, 'payment', 0);
    const chargesFor = async () =>
      (
        (await (await fetch(`${env.gateway.url}/charges?reference=${paymentId}`)).json()) as {
          charges: unknown[];
        }
      ).charges;
    expect(await chargesFor()).toHaveLength(1);

    const restarted = await startApi();
    const http = createHttp(restarted.url);
    const resumed = await retryUntilSettled(() =>
      http.post(`/invoices/${invoiceId}/payments`, { apiKey, key, body }),
    );
    expect(resumed.status).toBe(201);
    const replay = await http.post(`/invoices/${invoiceId}/payments`, { apiKey, key, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(resumed.text);
    expect(replay.json()).toMatchObject({ id: paymentId, status: 'captured', amount: 3000 });

    expect(await chargesFor()).toHaveLength(1);
    expect((await http.get(`/invoices/${invoiceId}`, apiKey)).json()).toMatchObject({
      paid: 3000,
      reserved: 0,
    });
    await restarted.stop();
  });

  it('SIGTERM lets a request in flight finish before the process exits', async () => {
    const api = await startApi();
    const invoiceId = await setUp(api);
    await fetch(`${env.gateway.url}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'charge', fault: { kind: 'latency', ms: 1500 } }),
    });
    const body = { method: 'card', amount: 100, currency: 'EUR', cardToken: 'tok_visa' };
    const inFlight = createHttp(api.url).post(`/invoices/${invoiceId}/payments`, {
      apiKey,
      key: randomUUID(),
      body,
    });
    await sleep(500);
    const stopping = api.stop();
    const answer = await inFlight;
    expect(answer.status).toBe(201);
    await stopping;
    expect(await api.exited).toEqual({ code: 0, signal: null });
  });
});
