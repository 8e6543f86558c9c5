import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryIntentStorage } from '../storage/index.js';
import { startMisbehavingServer } from '../testing/misbehaving-server.js';
import type { MisbehavingServer } from '../testing/misbehaving-server.js';
import { createRecordingSleep } from '../testing/recording-sleep.js';
import { createIdempotentClient } from './index.js';
import type { IdempotentClientOptions } from './index.js';

let server: MisbehavingServer;
beforeAll(async () => {
  server = await startMisbehavingServer();
});
afterAll(() => server.close());

const newClient = (options: Partial<IdempotentClientOptions> = {}) => {
  const recording = createRecordingSleep();
  const client = createIdempotentClient({
    storage: createMemoryIntentStorage(),
    baseUrl: server.url,
    sleep: recording.sleep,
    random: () => 0.5,
    retry: { attemptTimeoutMs: 2_000 },
    ...options,
  });
  return { client, waits: recording.waits };
};

const arrivalsOf = (key: string) => server.arrivals.filter((arrival) => arrival.key === key);
const effectsOf = (key: string) => server.effects.filter((effect) => effect.key === key);

describe('submitting an intent to a server that misbehaves', () => {
  it('gets the stored answer back, marked replayed, when the connection dropped after the handler ran', async () => {
    const { client } = newClient();
    const intent = await client.createIntent({ method: 'POST', path: '/payments', body: { amount: 700 } });
    server.failKey(intent.key, { kind: 'drop-after-handling' });

    const outcome = await client.submit(intent);

    expect(outcome).toMatchObject({ kind: 'succeeded', status: 201, replayed: true, attempts: 2 });
    expect(arrivalsOf(intent.key).map((arrival) => arrival.keyHeader)).toEqual([
      `"${intent.key}"`,
      `"${intent.key}"`,
    ]);
    expect(effectsOf(intent.key)).toHaveLength(1);
    expect(await client.pendingIntents()).toEqual([]);
  });

  it('waits what 503 Retry-After asks, in seconds or as an HTTP-date, within the cap', async () => {
    const { client, waits } = newClient({ retry: { maxDelayMs: 5_000, attemptTimeoutMs: 2_000 } });
    const intent = await client.createIntent({ method: 'POST', path: '/payments', body: { amount: 701 } });
    const inThreeSeconds = new Date(Date.now() + 3_000).toUTCString();
    server.failKey(
      intent.key,
      { kind: 'unavailable', retryAfter: '2' },
      { kind: 'unavailable', retryAfter: inThreeSeconds },
      { kind: 'unavailable', retryAfter: '3600' },
    );

    const outcome = await client.submit(intent);

    expect(outcome).toMatchObject({ kind: 'succeeded', replayed: false, attempts: 4 });
    expect(waits).toHaveLength(3);
    expect(waits[0]).toBe(2_000);
    expect(waits[1]).toBeGreaterThan(1_000);
    expect(waits[1]).toBeLessThanOrEqual(3_000);
    expect(waits[2]).toBe(5_000);
    expect(effectsOf(intent.key)).toHaveLength(1);
  });

  it('retries 409 idempotency-key-in-flight and then receives the answer', async () => {
    const { client, waits } = newClient();
    const intent = await client.createIntent({ method: 'POST', path: '/orders/o-1/complete' });
    server.failKey(intent.key, { kind: 'in-flight' }, { kind: 'in-flight' });

    const outcome = await client.submit(intent);

    expect(outcome).toMatchObject({ kind: 'succeeded', attempts: 3 });
    expect(waits.every((wait) => wait >= 1_000)).toBe(true);
    expect(new Set(arrivalsOf(intent.key).map((arrival) => arrival.key))).toEqual(new Set([intent.key]));
  });

  it('aborts an attempt the server never answers and retries it under the same key', async () => {
    const { client } = newClient({ retry: { attemptTimeoutMs: 400 } });
    const intent = await client.createIntent({
      method: 'POST',
      path: '/stock-counts',
      body: { sku: 'flour', count: 3 },
    });
    server.failKey(intent.key, { kind: 'hang' }, { kind: 'hang' });

    const outcome = await client.submit(intent);

    expect(outcome.kind).toBe('succeeded');
    expect(outcome.attempts).toBeGreaterThanOrEqual(3);
    expect(
      arrivalsOf(intent.key)
        .map((arrival) => arrival.fault)
        .slice(0, 2),
    ).toEqual(['hang', 'hang']);
    expect(arrivalsOf(intent.key)).toHaveLength(outcome.attempts);
    expect(effectsOf(intent.key)).toHaveLength(1);
  });

  it('returns a stored business rejection once, without retrying it', async () => {
    const { client } = newClient();
    const intent = await client.createIntent({
      method: 'POST',
      path: '/orders',
      body: { holdForReview: true },
    });

    const outcome = await client.submit(intent);

    expect(outcome).toMatchObject({
      kind: 'rejected',
      status: 422,
      final: true,
      attempts: 1,
      problem: { type: '/problems/held-for-review' },
    });
    expect(arrivalsOf(intent.key)).toHaveLength(1);
  });

  it('gives up with the network error as the last failure when nothing listens', async () => {
    const closed = await startMisbehavingServer();
    const { url } = closed;
    await closed.close();
    const { client } = newClient({ baseUrl: url, retry: { maxRetries: 2 } });
    const intent = await client.createIntent({ method: 'POST', path: '/payments', body: { amount: 1 } });

    const outcome = await client.submit(intent);

    expect(outcome).toMatchObject({
      kind: 'gave-up',
      reason: 'retries-exhausted',
      attempts: 3,
      lastFailure: { kind: 'network' },
    });
    expect(await client.pendingIntents()).toEqual([intent]);
  });
});
