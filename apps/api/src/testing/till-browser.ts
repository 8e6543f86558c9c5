import { execFile } from 'node:child_process';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { demoMenu } from '../embedded/demo-menu.js';

/** Where apps/till's bundle goes: the directory `main.ts` serves `/till` and `/console` from. */
export const webAssetsDirectory = fileURLToPath(new URL('../../../till/dist/web', import.meta.url));

const bundleScript = fileURLToPath(new URL('../../../till/scripts/bundle.ts', import.meta.url));
const screenshotDirectory = fileURLToPath(new URL('../../../../docs/images/', import.meta.url));

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
 * Gives a tenant the demo café's menu through the api.
 *
 * @example
 * await putDemoMenu(api.url, tenant.alice);
 */
export const putDemoMenu = async (url: string, apiKey: string): Promise<void> => {
  for (const { sku, ...item } of demoMenu) {
    const response = await fetch(`${url}/menu/items/${sku}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(item),
    });
    if (!response.ok) throw new Error(`PUT /menu/items/${sku}: ${String(response.status)}`);
  }
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
