import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueEvent } from '@once/client';
import { placeOrder } from '@once/client/samples/one-call-post';
import { startTillQueue } from '@once/client/samples/node-file-storage';
import { startOrderQueue } from '@once/client/samples/offline-queue';
import { payInvoice } from '@once/client/samples/pay-an-invoice';
import { payWithPatience } from '@once/client/samples/retry-policy';
import { sellACoffee } from '@once/client/samples/typed-routes';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { putDemoMenu, useTestApi } from '../testing/index.js';

// Every code sample of libs/client/README.md is one of these files (a workspace test checks the README shows them
// word for word); here each runs against the real api. Browser globals the samples use are stood in for.
const env = useTestApi();
const session = () => ({ baseUrl: env.api.url, token: env.tenant.alice });

/** `localStorage` as a Map: Node has none, and `openBrowserIntentStorage` falls back to it without IndexedDB. */
const memoryLocalStorage = () => {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key: string) => items.get(key) ?? null,
    key: (index: number) => [...items.keys()][index] ?? null,
    removeItem: (key: string) => void items.delete(key),
    setItem: (key: string, value: string) => void items.set(key, value),
  };
};

beforeAll(async () => {
  await putDemoMenu(env.api.url, env.tenant.ada);
  const windowEvents = new EventTarget();
  vi.stubGlobal('localStorage', memoryLocalStorage());
  vi.stubGlobal('addEventListener', windowEvents.addEventListener.bind(windowEvents));
  vi.stubGlobal('removeEventListener', windowEvents.removeEventListener.bind(windowEvents));
});
afterAll(() => {
  vi.unstubAllGlobals();
});

const openInvoice = async (total: number): Promise<string> => {
  const response = await env.http.post('/invoices', {
    apiKey: env.tenant.alice,
    key: crypto.randomUUID(),
    body: { currency: 'EUR', total },
  });
  return response.json<{ id: string }>().id;
};

describe('libs/client/README.md samples, against the api', () => {
  it('one-call-post: places an order with client.post', async () => {
    expect(await placeOrder(session())).toMatchObject({ status: 'placed', total: 500 });
  });

  it('pay-an-invoice: pays through browser storage, and reports a refusal as a value', async () => {
    expect(await payInvoice(session(), await openInvoice(900))).toBe('paid');
    expect(await payInvoice(session(), await openInvoice(100))).toMatch(/^refused: /);
  });

  it('retry-policy: submits with a retry policy and a signal', async () => {
    expect(await payWithPatience(session(), await openInvoice(100))).toMatchObject({ kind: 'succeeded' });
  });

  it('offline-queue: the queue sends the order once it is online', async () => {
    const events: QueueEvent[] = [];
    const queue = await startOrderQueue(session(), (event) => events.push(event));
    await queue.whenDrained();
    await queue.stop();
    expect(events.map((event) => event.type).filter((type) => type !== 'drained')).toEqual(['succeeded']);
  });

  it('node-file-storage: a queue over a file sends what it holds', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'once-till-'));
    try {
      const queue = startTillQueue(session(), join(directory, 'intents.json'));
      const sent = new Promise<QueueEvent>((resolve) =>
        queue.subscribe((event) => {
          if (event.type !== 'drained') resolve(event);
        }),
      );
      await queue.enqueue({
        method: 'POST',
        path: '/stock-counts',
        body: {},
      });
      expect((await sent).type).toBe('succeeded');
      await queue.stop();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('typed-routes: issues and pays an invoice through the typed routes', async () => {
    expect(await sellACoffee(session())).toBe('recorded');
  });
});
