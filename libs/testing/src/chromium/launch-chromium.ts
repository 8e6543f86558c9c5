import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';

/** Debian's Chromium (the `chromium` package), which the browser tests drive. */
export const chromiumPath = '/usr/bin/chromium';

/** Whether the browser tests can run here. */
export const chromiumPresent = existsSync(chromiumPath);

/**
 * Why a browser test file skips, for its `describe` title and a warning.
 *
 * @example
 * describe.skipIf(!chromiumPresent)(`the till${chromiumSkipNote('the till')}`, () => { … });
 */
export const chromiumSkipNote = (what: string): string =>
  chromiumPresent
    ? ''
    : ` (skipped: ${chromiumPath} is absent; install the Debian package "chromium" to run ${what} in a browser)`;

/** A headless Chromium with a profile of its own, removed on close. */
export interface ChromiumSession {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium on a fresh profile, with everything that would talk to the network off.
 *
 * @example
 * const browser = await launchChromium();
 * const page = await browser.context.newPage();
 * await browser.close();
 */
export const launchChromium = async (
  options: { readonly viewport?: { readonly width: number; readonly height: number } } = {},
): Promise<ChromiumSession> => {
  const userDataDir = await mkdtemp(join(tmpdir(), 'once-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    ...(options.viewport ? { viewport: options.viewport } : {}),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
};
