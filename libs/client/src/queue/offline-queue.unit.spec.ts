import { describe, expect, it } from 'vitest';
import { createIdempotentClient } from '../client/index.js';
import { createMemoryIntentStorage } from '../storage/index.js';
import type { IntentStorage } from '../storage/index.js';
import { createRecordingSleep } from '../testing/recording-sleep.js';
import { createOfflineQueue, DEFAULT_KEY_RETENTION_MS } from './index.js';
import type { QueueEvent } from './index.js';

/** An in-process stand-in for the network: answers from a script, records the body of each request. */
const scriptedFetch = (statuses: number[]) => {
  const sent: string[] = [];
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    sent.push(typeof init?.body === 'string' ? init.body : '');
    const status = statuses.shift() ?? 201;
    return new Response(status === 201 ? '{}' : '', { status });
  };
  return { fetch, sent };
};

const setup = (
  statuses: number[],
  storage: IntentStorage = createMemoryIntentStorage(),
  clock = { at: 0 },
  maxAgeMs?: number,
) => {
  const network = scriptedFetch(statuses);
  const queueSleep = createRecordingSleep();
  const client = createIdempotentClient({
    storage,
    baseUrl: 'http://api.test',
    fetch: network.fetch,
    sleep: createRecordingSleep().sleep,
    now: () => clock.at,
    retry: { maxRetries: 2 },
  });
  const queue = createOfflineQueue({
    client,
    retryIntervalMs: 45_000,
    sleep: queueSleep.sleep,
    now: () => clock.at,
    ...(maxAgeMs === undefined ? {} : { maxAgeMs }),
  });
  const events: QueueEvent[] = [];
  queue.subscribe((event) => events.push(event));
  return { queue, events, network, queueWaits: queueSleep.waits, clock };
};

describe('createOfflineQueue', () => {
  it('keeps an intent first in line after the client gives up, so the next one never overtakes it', async () => {
    const { queue, events, network, queueWaits } = setup([503, 503, 503, 201, 201]);
    await queue.enqueue({ method: 'POST', path: '/orders', body: { n: 1 } });
    await queue.enqueue({ method: 'POST', path: '/orders', body: { n: 2 } });
    queue.start();
    await queue.whenDrained();

    expect(network.sent).toEqual(['{"n":1}', '{"n":1}', '{"n":1}', '{"n":1}', '{"n":2}']);
    expect(events.map((event) => event.type)).toEqual(['gave-up', 'succeeded', 'succeeded', 'drained']);
    expect(queueWaits).toEqual([45_000]);
    await queue.stop();
  });

  it('takes intents older than maxAgeMs off the queue unsent and reports them', async () => {
    const clock = { at: 1_000 };
    const { queue, events, network } = setup([], createMemoryIntentStorage(), clock);
    const old = await queue.enqueue({ method: 'POST', path: '/orders', body: { n: 'old' } });
    clock.at += 86_400_001;
    await queue.enqueue({ method: 'POST', path: '/orders', body: { n: 'fresh' } });
    queue.start();
    await queue.whenDrained();

    expect(events[0]).toEqual({ type: 'expired', intent: old });
    expect(network.sent).toEqual(['{"n":"fresh"}']);
    await queue.stop();
  });

  it("ages intents against the server's default key retention unless told otherwise", async () => {
    const clock = { at: 1_000 };
    const byDefault = setup([201], createMemoryIntentStorage(), clock);
    const old = await byDefault.queue.enqueue({ method: 'POST', path: '/orders', body: { n: 'old' } });
    clock.at += DEFAULT_KEY_RETENTION_MS + 1;
    byDefault.queue.start();
    await byDefault.queue.whenDrained();
    expect(byDefault.events[0]).toEqual({ type: 'expired', intent: old });
    expect(byDefault.network.sent).toEqual([]);
    await byDefault.queue.stop();

    const forever = setup([201], createMemoryIntentStorage(), clock, Number.POSITIVE_INFINITY);
    await forever.queue.enqueue({ method: 'POST', path: '/orders', body: { n: 'kept' } });
    clock.at += 10 * DEFAULT_KEY_RETENTION_MS;
    forever.queue.start();
    await forever.queue.whenDrained();
    expect(forever.network.sent).toEqual(['{"n":"kept"}']);
    await forever.queue.stop();
  });

  it('reports a storage failure and carries on once storage works again', async () => {
    const inner = createMemoryIntentStorage();
    let failures = 1;
    const flaky: IntentStorage = {
      ...inner,
      list: async () => {
        if (failures-- > 0) throw new Error('disk unplugged');
        return inner.list();
      },
    };
    const { queue, events, network } = setup([], flaky);
    await queue.enqueue({ method: 'POST', path: '/orders', body: { n: 1 } });
    queue.start();
    await queue.whenDrained();

    expect(events.map((event) => event.type)).toEqual(['storage-error', 'succeeded', 'drained']);
    expect(network.sent).toEqual(['{"n":1}']);
    await queue.stop();
  });

  it('resolves whenDrained at once when nothing is waiting, and sends nothing before start', async () => {
    const { queue, network } = setup([]);
    await queue.enqueue({ method: 'POST', path: '/orders', body: { n: 1 } });
    expect(network.sent).toEqual([]);
    queue.start();
    await queue.whenDrained();
    await queue.whenDrained();
    expect(network.sent).toHaveLength(1);
    await queue.stop();
  });
});
