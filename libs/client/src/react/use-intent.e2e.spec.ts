import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, chromiumSkipNote, launchChromium } from '@once/testing';
import type { ChromiumSession } from '@once/testing';
import { startMisbehavingServer } from '../testing/misbehaving-server.js';
import type { MisbehavingServer } from '../testing/misbehaving-server.js';

const SKIP_NOTE = chromiumSkipNote('the useIntent tests');
if (!chromiumPresent) console.warn(`use-intent.e2e.spec.ts${SKIP_NOTE}`);

// The README's pay button (samples/pay-button.ts), rendered with a client that gives up after one attempt.
const PAGE_SCRIPT = `
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { createIdempotentClient, createMemoryIntentStorage } from '@once/client';
import { PayButton } from '../../samples/pay-button.ts';

const client = createIdempotentClient({ storage: createMemoryIntentStorage(), retry: { maxRetries: 0 } });
createRoot(document.getElementById('root')).render(createElement(PayButton, { client, invoiceId: 'inv-1' }));
document.title = 'ready';
`;

const PAGE = `<!doctype html><meta charset="utf-8"><title>useIntent</title><div id="root"></div>
<script type="module" src="/pay-button.js"></script>`;

describe.skipIf(!chromiumPresent)(`useIntent in headless Chromium${SKIP_NOTE}`, () => {
  let server: MisbehavingServer;
  let browser: ChromiumSession;
  let context: BrowserContext;

  beforeAll(async () => {
    const result = await build({
      stdin: {
        contents: PAGE_SCRIPT,
        resolveDir: fileURLToPath(new URL('.', import.meta.url)),
        loader: 'ts',
      },
      conditions: ['@once/source'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      define: { 'process.env.NODE_ENV': '"production"' },
      write: false,
      logLevel: 'silent',
    });
    server = await startMisbehavingServer();
    server.serveStatic('/', 'text/html; charset=utf-8', PAGE);
    server.serveStatic('/pay-button.js', 'text/javascript; charset=utf-8', result.outputFiles[0]?.text ?? '');
    browser = await launchChromium();
    context = browser.context;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const openPage = async (): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => document.title === 'ready');
    return page;
  };
  const stateOnceAnswered = async (page: Page): Promise<string> => {
    await page.waitForFunction(() =>
      /^(succeeded|rejected|gave-up) /.test(document.querySelector('#state')?.textContent ?? ''),
    );
    return (await page.textContent('#state')) ?? '';
  };
  const payments = () => server.arrivals.filter((arrival) => arrival.path === '/invoices/inv-1/payments');

  it('sends a double tap once: both taps share one key and one request', async () => {
    const page = await openPage();
    const before = payments().length;
    await page.evaluate(() => {
      const button = document.querySelector<HTMLButtonElement>('#pay');
      button?.click();
      button?.click();
    });
    const [outcome, key] = (await stateOnceAnswered(page)).split(' ');
    expect(outcome).toBe('succeeded');
    const sent = payments().slice(before);
    expect(sent.map((arrival) => arrival.key)).toEqual([key]);
    expect(server.effects.filter((effect) => effect.key === key)).toHaveLength(1);
  });

  it('sends the same key again after giving up, and the effect happens once', async () => {
    const page = await openPage();
    const before = payments().length;
    server.failNext({ kind: 'unavailable', retryAfter: '0' });
    await page.click('#pay');
    const [gaveUp, key] = (await stateOnceAnswered(page)).split(' ');
    expect(gaveUp).toBe('gave-up');
    await page.click('#pay');
    await page.waitForFunction(() => document.querySelector('#state')?.textContent?.startsWith('succeeded'));
    expect(await page.textContent('#state')).toBe(`succeeded ${key ?? ''}`);
    expect(
      payments()
        .slice(before)
        .map((arrival) => arrival.key),
    ).toEqual([key, key]);
    expect(server.effects.filter((effect) => effect.key === key)).toHaveLength(1);
  });

  it('sends nothing for a tap after the answer, and a new key only after reset', async () => {
    const page = await openPage();
    await page.click('#pay');
    const [, first] = (await stateOnceAnswered(page)).split(' ');
    const before = payments().length;
    await page.click('#pay');
    await page.waitForLoadState('networkidle');
    expect(await page.textContent('#state')).toBe(`succeeded ${first ?? ''}`);
    expect(payments()).toHaveLength(before);

    await page.click('#new');
    await page.waitForFunction(() => document.querySelector('#state')?.textContent === 'idle');
    await page.click('#pay');
    const [outcome, second] = (await stateOnceAnswered(page)).split(' ');
    expect(outcome).toBe('succeeded');
    expect(second).not.toBe(first);
    expect(
      payments()
        .slice(before)
        .map((arrival) => arrival.key),
    ).toEqual([second]);
  });
});
