import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '@once/postgres';
import { chromiumPresent, chromiumSkipNote, launchChromium } from '@once/testing';
import type { ChromiumSession } from '@once/testing';
import { createApiKeyStore } from '../http/auth/index.js';
import { bundleWebApps, putDemoMenu, signIn, useApiProcesses, webAssetsDirectory } from '../testing/index.js';

// The api is a child process that kills itself (SIGKILL) right after the gateway charged the card; the till keeps
// retrying the payment with its key, and the api restarted on the same address finishes it from its recovery point.

const SKIP_NOTE = chromiumSkipNote('the till crash test');
if (!chromiumPresent) console.warn(`till-crash.e2e.spec.ts${SKIP_NOTE}`);

describe.skipIf(!chromiumPresent)(`the till when the api dies mid-payment${SKIP_NOTE}`, () => {
  const env = useApiProcesses();
  let browser: ChromiumSession;

  beforeAll(async () => {
    // The api process serves what `npm start` serves.
    await bundleWebApps(webAssetsDirectory);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  const startApi = (port: number, fault?: string) => env.startApi(fault ? { port, fault } : { port });

  it('killed while a card payment is in flight: after the restart the till shows one payment', async () => {
    const port = await findFreePort();
    const crashing = await startApi(port, 'after-gateway-charge');
    const tenantId = randomUUID();
    const apiKeys = createApiKeyStore(env.db.pool);
    const apiKey = await apiKeys.create({ tenantId, actorId: randomUUID() });
    await putDemoMenu(crashing.url, await apiKeys.create({ tenantId, actorId: randomUUID(), role: 'admin' }));
    const page = await browser.context.newPage();
    await signIn(page, `${crashing.url}/till`, apiKey);
    await page.click('[data-sku=cappuccino]');
    await page.click('#place-order');
    const payCard = page.locator('[data-testid=order][data-number="1"] [data-action=pay-card]');
    await expect.poll(() => payCard.isEnabled(), { timeout: 30_000 }).toBe(true);

    await payCard.click();
    expect((await crashing.exited).signal).toBe('SIGKILL');
    // The till holds the payment in its queue, under its key, while nothing answers.
    await page.locator('[data-testid=queue] li', { hasText: 'Pay order 1 by card' }).waitFor();

    await startApi(port);

    await expect
      .poll(
        () =>
          page.locator('[data-testid=order][data-number="1"]').getByTestId('payments-count').textContent(),
        {
          timeout: 90_000,
        },
      )
      .toBe('1');
    await page.getByTestId('queue-empty').waitFor();
    const { rows } = await env.db.pool.query<{ payment_id: string }>(
      `SELECT data->>'paymentId' AS payment_id FROM events WHERE type = 'CardPaymentCaptured' AND data->>'tenantId' = $1`,
      [tenantId],
    );
    expect(rows).toHaveLength(1);
    const charges = (await (
      await fetch(`${env.gateway.url}/charges?reference=${rows[0]?.payment_id ?? ''}`)
    ).json()) as {
      charges: unknown[];
    };
    expect(charges.charges).toHaveLength(1);
    await page.close();
  });
});
