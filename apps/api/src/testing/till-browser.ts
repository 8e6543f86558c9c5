import { execFile } from 'node:child_process';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { findFreePort } from '@once/postgres';
import { createTestDatabase, launchChromium } from '@once/testing';
import type { ChromiumSession, TestDatabase } from '@once/testing';
import { startGatewaySimProcess } from '../embedded/gateway-sim-process.js';
import type { GatewaySimProcess } from '../embedded/gateway-sim-process.js';
import { startTestApi } from './test-api.js';
import type { TestApi } from './test-api.js';

/** Where apps/till's bundle goes: the directory `main.ts` serves `/till` and `/console` from. */
export const webAssetsDirectory = fileURLToPath(new URL('../../../till/dist/web', import.meta.url));

const bundleScript = fileURLToPath(new URL('../../../till/scripts/bundle.ts', import.meta.url));
const screenshotDirectory = fileURLToPath(new URL('../../../../docs/images', import.meta.url));

/**
 * Bundles the till and the console as `npm start` does (a process, not an import: apps never import apps), into
 * `directory` (a fresh temporary one by default, so test files running side by side never write the same files).
 *
 * @example
 * const webAssetsDirectory = await bundleWebApps();
 */
export const bundleWebApps = async (directory?: string): Promise<string> => {
  const target = directory ?? (await mkdtemp(join(tmpdir(), 'once-web-')));
  await promisify(execFile)(
    process.execPath,
    ['--conditions=@once/source', '--import', 'tsx', bundleScript, target],
    { timeout: 120_000 },
  );
  return target;
};

/**
 * Saves a picture of the page to `docs/images/<name>.png` when `ONCE_SCREENSHOTS=1` (the README shows them).
 *
 * @example
 * await saveScreenshot(page, 'till-held-for-review');
 */
export const saveScreenshot = async (
  page: Page,
  name: string,
  options: { readonly fullPage?: boolean } = {},
): Promise<void> => {
  if (process.env['ONCE_SCREENSHOTS'] !== '1') return;
  await mkdir(screenshotDirectory, { recursive: true });
  await page.screenshot({ path: `${screenshotDirectory}${name}.png`, fullPage: options.fullPage ?? false });
};

/**
 * Opens `/till` or `/console`, signs in with the API key and waits until the page has started.
 *
 * @example
 * await signIn(page, `${api.url}/till`, tenant.alice);
 */
export const signIn = async (page: Page, pageUrl: string, apiKey: string): Promise<void> => {
  await page.goto(pageUrl);
  await page.fill('#api-key', apiKey);
  await page.click('#sign-in');
  await page.waitForSelector('body[data-ready=true]');
};

/** What `useBrowserTestApi` gives a test file once its `beforeAll` has run. */
export interface BrowserTestApi {
  readonly db: TestDatabase;
  readonly gateway: GatewaySimProcess;
  readonly api: TestApi;
  readonly browser: ChromiumSession;
}

/**
 * Registers the setup of a browser test file (call it inside the `describe`): its own database, the gateway simulator,
 * the api serving a fresh bundle of the till and console, and headless Chromium; all closed after the file.
 *
 * @example
 * describe.skipIf(!chromiumPresent)('the till', () => {
 *   const env = useBrowserTestApi();
 *   it('opens', async () => signIn(await env.browser.context.newPage(), `${env.api.url}/till`, apiKey));
 * });
 */
export const useBrowserTestApi = (
  options: { readonly viewport?: { readonly width: number; readonly height: number } } = {},
): BrowserTestApi => {
  const context = {} as {
    db: TestDatabase;
    gateway: GatewaySimProcess;
    api: TestApi;
    browser: ChromiumSession;
  };
  beforeAll(async () => {
    context.db = await createTestDatabase();
    context.gateway = await startGatewaySimProcess({ port: await findFreePort() });
    context.api = await startTestApi({
      databaseUrl: context.db.connectionString,
      gatewayUrl: context.gateway.url,
      webAssetsDirectory: await bundleWebApps(),
      logger: false,
    });
    context.browser = await launchChromium({ viewport: options.viewport ?? { width: 1400, height: 860 } });
  });
  afterAll(async () => {
    await context.browser?.close();
    await context.api?.close();
    await context.gateway?.stop();
    await context.db?.release();
  });
  return context;
};
