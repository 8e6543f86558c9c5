import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdempotentClient } from '../client/index.js';
import { createFileIntentStorage } from '../node.js';
import { createMemoryIntentStorage } from '../storage/index.js';
import type { IntentStorage } from '../storage/index.js';
import { startMisbehavingServer } from '../testing/misbehaving-server.js';
import type { MisbehavingServer } from '../testing/misbehaving-server.js';
import { createRecordingSleep } from '../testing/recording-sleep.js';
import { connectBrowserConnectivity, createOfflineQueue } from './index.js';
import type { OfflineQueue, QueueEvent } from './index.js';

let server: MisbehavingServer;
let root: string;
beforeAll(async () => {
  server = await startMisbehavingServer();
  root = await mkdtemp(join(tmpdir(), 'once-client-queue-'));
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

/** A process: a client and a queue over the given storage, as an app would build them at start-up. */
const startProcess = (storage: IntentStorage, options: { online?: boolean; token?: () => string } = {}) => {
  const client = createIdempotentClient({
    storage,
    baseUrl: server.url,
    sleep: createRecordingSleep().sleep,
    retry: { attemptTimeoutMs: 1_000, maxRetries: 3 },
    ...(options.token === undefined
      ? {}
      : { headers: () => ({ authorization: `Bearer ${options.token?.() ?? ''}` }) }),
  });
  const queue = createOfflineQueue({ client, online: options.online ?? true, retryIntervalMs: 10 });
  const events: QueueEvent[] = [];
  queue.subscribe((event) => events.push(event));
  queue.start();
  return { client, queue, events };
};

const labelOf = (body: string): string => (JSON.parse(body) as { label: string }).label;
const nextEvent = (queue: OfflineQueue, type: QueueEvent['type']) =>
  new Promise<QueueEvent>((resolve) => {
    const unsubscribe = queue.subscribe((event) => {
      if (event.type === type) {
        unsubscribe();
        resolve(event);
      }
    });
  });
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('the offline queue against a real server', () => {
  it('survives a restart mid-queue: every intent arrives once, in order, under its original key', async () => {
    const file = join(root, 'restart', 'intents.json');
    const first = startProcess(createFileIntentStorage(file), { online: false });
    const labels = ['order-1', 'order-2', 'order-3', 'order-4', 'order-5'];
    const intents = [];
    for (const label of labels)
      intents.push(await first.queue.enqueue({ method: 'POST', path: '/orders', body: { label } }));
    const keyOf = new Map(intents.map((intent) => [labelOf(intent.request.bodyText ?? ''), intent.key]));

    await settle();
    expect(server.arrivals.filter((arrival) => [...keyOf.values()].includes(arrival.key ?? ''))).toEqual([]);

    server.failKey(keyOf.get('order-2') ?? '', { kind: 'drop-after-handling' });
    server.failKey(keyOf.get('order-3') ?? '', { kind: 'unavailable', retryAfter: '1' });
    server.failKey(keyOf.get('order-4') ?? '', { kind: 'in-flight' }, { kind: 'hang' });
    const crashed = new Promise<void>((resolve) =>
      server.onArrival((arrival) => {
        if (arrival.key === keyOf.get('order-2') && arrival.fault === 'drop-after-handling') resolve();
      }),
    );
    first.queue.setOnline(true);
    await crashed;
    await first.queue.stop();
    expect((await first.queue.pending()).map((intent) => intent.key)).toEqual(
      intents.slice(1).map((intent) => intent.key),
    );

    const second = startProcess(createFileIntentStorage(file));
    const sixth = await second.queue.enqueue({ method: 'POST', path: '/orders', body: { label: 'order-6' } });
    keyOf.set('order-6', sixth.key);
    await second.queue.whenDrained();

    const ours = server.arrivals.filter(
      (arrival) => arrival.key !== undefined && [...keyOf.values()].includes(arrival.key),
    );
    for (const arrival of ours) expect(arrival.key).toBe(keyOf.get(labelOf(arrival.body)));
    expect(ours.every((arrival) => arrival.keyHeader === `"${arrival.key}"`)).toBe(true);
    const firstArrivalOrder = [...new Set(ours.map((arrival) => labelOf(arrival.body)))];
    expect(firstArrivalOrder).toEqual([...labels, 'order-6']);
    const effects = server.effects.filter((effect) => [...keyOf.values()].includes(effect.key));
    expect(effects.map((effect) => labelOf(effect.body))).toEqual([...labels, 'order-6']);

    const succeeded = second.events.flatMap((event) => (event.type === 'succeeded' ? [event] : []));
    expect(succeeded.map((event) => labelOf(event.intent.request.bodyText ?? ''))).toEqual([
      'order-2',
      'order-3',
      'order-4',
      'order-5',
      'order-6',
    ]);
    expect(succeeded[0]?.outcome.replayed).toBe(true);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, intents: [] });
    await second.queue.stop();
  });

  it('surfaces a stored business rejection, removes it and goes on with the next intent', async () => {
    const { queue, events } = startProcess(createMemoryIntentStorage());
    const held = await queue.enqueue({
      method: 'POST',
      path: '/orders',
      body: { label: 'repriced', holdForReview: true },
    });
    const after = await queue.enqueue({ method: 'POST', path: '/orders', body: { label: 'after' } });
    await queue.whenDrained();

    expect(events.filter((event) => event.type !== 'drained')).toMatchObject([
      {
        type: 'rejected',
        intent: { key: held.key },
        outcome: { status: 422, problem: { type: '/problems/held-for-review' } },
      },
      { type: 'succeeded', intent: { key: after.key } },
    ]);
    expect(server.arrivals.filter((arrival) => arrival.key === held.key)).toHaveLength(1);
    expect(await queue.pending()).toEqual([]);
    await queue.stop();
  });

  it('pauses when the network goes away mid-attempt and resends the same key when it is back', async () => {
    const { queue } = startProcess(createMemoryIntentStorage());
    const intent = await queue.enqueue({ method: 'POST', path: '/orders', body: { label: 'flaky-wifi' } });
    const arrived = new Promise<void>((resolve) =>
      server.onArrival((arrival) => arrival.key === intent.key && resolve()),
    );
    server.failKey(intent.key, { kind: 'hang' });
    await arrived;
    queue.setOnline(false);
    await settle();
    expect(await queue.pending()).toEqual([intent]);
    expect(server.arrivals.filter((arrival) => arrival.key === intent.key)).toHaveLength(1);

    queue.setOnline(true);
    await queue.whenDrained();
    expect(server.arrivals.filter((arrival) => arrival.key === intent.key)).toHaveLength(2);
    expect(server.effects.filter((effect) => effect.key === intent.key)).toHaveLength(1);
    await queue.stop();
  });

  it('holds the line on 401 until resumed with new credentials, then sends the same key', async () => {
    let token = 'expired';
    const { queue } = startProcess(createMemoryIntentStorage(), { token: () => token });
    const blocked = nextEvent(queue, 'blocked');
    const first = await queue.enqueue({ method: 'POST', path: '/orders', body: { label: 'needs-login' } });
    server.failKey(first.key, { kind: 'unauthorized' });
    const second = await queue.enqueue({ method: 'POST', path: '/orders', body: { label: 'behind-it' } });
    await blocked;
    expect((await queue.pending()).map((intent) => intent.key)).toEqual([first.key, second.key]);

    token = 'fresh';
    queue.resume();
    await queue.whenDrained();
    const arrivals = server.arrivals.filter(
      (arrival) => arrival.key === first.key || arrival.key === second.key,
    );
    expect(arrivals.map((arrival) => [arrival.key, arrival.authorization])).toEqual([
      [first.key, 'Bearer expired'],
      [first.key, 'Bearer fresh'],
      [second.key, 'Bearer fresh'],
    ]);
    await queue.stop();
  });

  it('follows online and offline events from the page', async () => {
    const page = Object.assign(new EventTarget(), { navigator: { onLine: false } });
    const { queue } = startProcess(createMemoryIntentStorage());
    const disconnect = connectBrowserConnectivity(queue, page);
    expect(queue.online).toBe(false);
    page.dispatchEvent(new Event('online'));
    expect(queue.online).toBe(true);
    page.dispatchEvent(new Event('offline'));
    expect(queue.online).toBe(false);
    disconnect();
    page.dispatchEvent(new Event('online'));
    expect(queue.online).toBe(false);
    await queue.stop();
  });
});
