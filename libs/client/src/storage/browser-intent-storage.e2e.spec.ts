import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, chromiumSkipNote, launchChromium } from '@once/testing';
import type { ChromiumSession } from '@once/testing';
import type * as OnceClient from '../index.js';
import { startMisbehavingServer } from '../testing/misbehaving-server.js';
import type { MisbehavingServer } from '../testing/misbehaving-server.js';

const SKIP_NOTE = chromiumSkipNote('the browser storage tests');
if (!chromiumPresent) console.warn(`browser-intent-storage.e2e.spec.ts${SKIP_NOTE}`);

declare global {
  interface Window {
    Once: typeof OnceClient;
  }
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>once client storage</title>
<script type="module">import * as Once from '/once-client.js'; window.Once = Once; document.title = 'ready';</script>`;

/** Removes IndexedDB before any script of the page runs, as a browser without it would look. */
const WITHOUT_INDEXEDDB = () => {
  if (location.search.includes('no-indexeddb')) {
    Object.defineProperty(window, 'indexedDB', { value: undefined, configurable: true });
  }
};

describe.skipIf(!chromiumPresent)(`browser intent storage in headless Chromium${SKIP_NOTE}`, () => {
  let server: MisbehavingServer;
  let browser: ChromiumSession;
  let context: BrowserContext;
  let bundle: string;

  beforeAll(async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../index.ts', import.meta.url))],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    bundle = result.outputFiles[0]?.text ?? '';
    server = await startMisbehavingServer();
    server.serveStatic('/', 'text/html; charset=utf-8', PAGE);
    server.serveStatic('/once-client.js', 'text/javascript; charset=utf-8', bundle);
    browser = await launchChromium();
    context = browser.context;
    await context.addInitScript(WITHOUT_INDEXEDDB);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const openPage = async (query = ''): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(`${server.url}/${query}`);
    await page.waitForFunction(() => document.title === 'ready');
    return page;
  };
  const reload = async (page: Page): Promise<void> => {
    await page.reload();
    await page.waitForFunction(() => document.title === 'ready');
  };

  it('bundles the main entry for the browser with no Node-only import', () => {
    expect(bundle.length).toBeGreaterThan(1_000);
    expect(bundle).not.toMatch(/from\s*["']node:|require\(["']node:/);
  });

  it('keeps intents in IndexedDB, in saving order, across a page reload', async () => {
    const page = await openPage();
    const saved = await page.evaluate(async () => {
      const storage = await window.Once.openBrowserIntentStorage('idb-reload');
      const intent = (key: string, createdAt: number) => ({
        key,
        request: {
          method: 'POST' as const,
          path: '/orders',
          headers: {},
          bodyText: JSON.stringify({ key }),
        },
        createdAt,
      });
      for (const [index, key] of ['first-key-1', 'second-key-2', 'third-key-3', 'fourth-key-4'].entries()) {
        await storage.save(intent(key, index));
      }
      await storage.save(intent('second-key-2', 99));
      await storage.remove('first-key-1');
      return { backend: storage.backend, keys: (await storage.list()).map((stored) => stored.key) };
    });
    expect(saved).toEqual({ backend: 'indexeddb', keys: ['second-key-2', 'third-key-3', 'fourth-key-4'] });

    await reload(page);
    const reloaded = await page.evaluate(async () => {
      const storage = await window.Once.openBrowserIntentStorage('idb-reload');
      const intents = await storage.list();
      return {
        backend: storage.backend,
        intents: intents.map((stored) => [stored.key, stored.createdAt]),
        loaded: await storage.load('third-key-3'),
        inLocalStorage: localStorage.getItem('once-intents:idb-reload'),
      };
    });
    expect(reloaded).toEqual({
      backend: 'indexeddb',
      intents: [
        ['second-key-2', 99],
        ['third-key-3', 2],
        ['fourth-key-4', 3],
      ],
      loaded: {
        key: 'third-key-3',
        request: { method: 'POST', path: '/orders', headers: {}, bodyText: '{"key":"third-key-3"}' },
        createdAt: 2,
      },
      inLocalStorage: null,
    });
    await page.close();
  });

  it('falls back to localStorage where IndexedDB is missing, and keeps intents across a reload', async () => {
    const page = await openPage('?no-indexeddb');
    const saved = await page.evaluate(async () => {
      const storage = await window.Once.openBrowserIntentStorage('ls-reload');
      for (const key of ['alpha-key-1', 'bravo-key-2', 'charlie-key-3']) {
        await storage.save({
          key,
          request: { method: 'PATCH', path: '/orders/1', headers: {} },
          createdAt: 1,
        });
      }
      await storage.remove('bravo-key-2');
      return { hasIndexedDb: typeof window.indexedDB, backend: storage.backend };
    });
    expect(saved).toEqual({ hasIndexedDb: 'undefined', backend: 'localstorage' });

    await reload(page);
    const reloaded = await page.evaluate(async () => {
      const storage = await window.Once.openBrowserIntentStorage('ls-reload');
      return {
        backend: storage.backend,
        keys: (await storage.list()).map((stored) => stored.key),
        raw: JSON.parse(localStorage.getItem('once-intents:ls-reload') ?? 'null') as unknown,
      };
    });
    expect(reloaded).toMatchObject({ backend: 'localstorage', keys: ['alpha-key-1', 'charlie-key-3'] });
    expect(reloaded.raw).toHaveLength(2);
    await page.close();
  });

  it('falls back to localStorage when IndexedDB refuses to open', async () => {
    const page = await openPage();
    const backend = await page.evaluate(async () => {
      const refusing = {
        open: () => {
          throw new DOMException('The user denied permission to access the database.', 'SecurityError');
        },
      } as unknown as IDBFactory;
      return (await window.Once.openBrowserIntentStorage('refused', { indexedDB: refusing })).backend;
    });
    expect(backend).toBe('localstorage');
    await page.close();
  });

  it('submits an intent created before a reload with its original key, from the page', async () => {
    const page = await openPage();
    const key = await page.evaluate(async () => {
      const client = window.Once.createIdempotentClient({
        storage: await window.Once.openBrowserIntentStorage('flow'),
      });
      return (
        await client.createIntent({ method: 'POST', path: '/orders', body: { label: 'from-the-browser' } })
      ).key;
    });
    expect(server.arrivals.filter((arrival) => arrival.key === key)).toEqual([]);
    server.failKey(key, { kind: 'drop-after-handling' });

    await reload(page);
    const outcome = await page.evaluate(async () => {
      const client = window.Once.createIdempotentClient({
        storage: await window.Once.openBrowserIntentStorage('flow'),
        retry: { baseDelayMs: 10 },
      });
      const [pending] = await client.pendingIntents();
      if (pending === undefined) return undefined;
      const result = await client.submit(pending);
      return {
        kind: result.kind,
        replayed: result.kind === 'succeeded' && result.replayed,
        left: (await client.pendingIntents()).length,
      };
    });

    expect(outcome).toEqual({ kind: 'succeeded', replayed: true, left: 0 });
    const arrivals = server.arrivals.filter((arrival) => arrival.key === key);
    expect(arrivals.map((arrival) => arrival.keyHeader)).toEqual([`"${key}"`, `"${key}"`]);
    expect(server.effects.filter((effect) => effect.key === key)).toHaveLength(1);
    await page.close();
  });
});
