import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumPresent, chromiumSkipNote } from '@once/testing';
import { putDemoMenu, putMenuItems, saveScreenshot, signIn, useBrowserTestApi } from '../testing/index.js';

// The till as the api serves it, in real Chromium: one key per tap, the offline queue in IndexedDB, every order
// priced by the api from its menu when it arrives.

const SKIP_NOTE = chromiumSkipNote('the till tests');
if (!chromiumPresent) console.warn(`till.e2e.spec.ts${SKIP_NOTE}`);

describe.skipIf(!chromiumPresent)(`the till in headless Chromium${SKIP_NOTE}`, () => {
  const env = useBrowserTestApi();

  /** A fresh tenant with the demo menu, signed in on a new page of the till (staff); `adminKey` sets its prices. */
  const openTill = async (): Promise<{ page: Page; apiKey: string; adminKey: string; tenantId: string }> => {
    const tenant = await env.api.tenant();
    await putDemoMenu(env.api.url, tenant.ada);
    const page = await env.browser.context.newPage();
    await signIn(page, `${env.api.url}/till`, tenant.alice);
    await page.waitForSelector('[data-sku=espresso]');
    return { page, apiKey: tenant.alice, adminKey: tenant.ada, tenantId: tenant.tenantId };
  };

  const order = (page: Page, number: number) =>
    page.locator(`[data-testid=order][data-number="${String(number)}"]`);

  const placeOrder = async (page: Page, items: readonly string[]) => {
    for (const sku of items) await page.click(`[data-sku=${sku}]`);
    await page.click('#place-order');
  };

  /** Waits until order 1 can be paid, taps its pay button as `tap` says, and waits until it shows one payment. */
  const pay = async (page: Page, method: 'cash' | 'card', tap: (button: Locator) => Promise<void>) => {
    const button = order(page, 1).locator(`[data-action=pay-${method}]`);
    await expect.poll(() => button.isEnabled(), { timeout: 30_000 }).toBe(true);
    await tap(button);
    await expect
      .poll(() => order(page, 1).getByTestId('payments-count').textContent(), { timeout: 30_000 })
      .toBe('1');
  };

  const countRows = async (sql: string, values: readonly unknown[]) =>
    Number((await env.db.pool.query<{ n: string }>(sql, [...values])).rows[0]?.n);

  it('a double click on "pay" makes one payment', async () => {
    const { page, tenantId } = await openTill();
    await placeOrder(page, ['flat-white', 'croissant']);
    await pay(page, 'cash', (button) => button.dblclick());
    await page.getByTestId('queue-empty').waitFor();
    expect(await page.locator('[data-testid=sent] li', { hasText: 'Pay order 1' }).count()).toBe(1);
    // The stream itself (not a read model): one payment recorded on the tenant's invoice.
    expect(
      await countRows(
        `SELECT count(*) AS n FROM events WHERE type = 'PaymentRecorded' AND data->>'tenantId' = $1`,
        [tenantId],
      ),
    ).toBe(1);
    await page.close();
  });

  it('offline, three orders, a reload, online: each delivered once, in order', async () => {
    const { page, tenantId } = await openTill();
    await page.check('#offline-switch');
    await page.getByTestId('connection').filter({ hasText: 'Offline' }).waitFor();
    await placeOrder(page, ['espresso']);
    await placeOrder(page, ['espresso', 'espresso']);
    await placeOrder(page, ['espresso', 'espresso', 'espresso']);
    await expect.poll(() => page.locator('[data-testid=queue] li[data-state=offline]').count()).toBe(3);
    await saveScreenshot(page, 'till-offline-queue');

    await page.reload();
    await page.waitForSelector('body[data-ready=true]');
    await expect.poll(() => page.locator('[data-testid=queue] li[data-state=offline]').count()).toBe(3);
    await expect.poll(() => page.locator('[data-testid=order][data-status=queued]').count()).toBe(3);

    await page.uncheck('#offline-switch');

    await page.getByTestId('queue-empty').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('[data-testid=order][data-status=placed]').count()).toBe(3);
    await expect
      .poll(
        async () =>
          (
            await env.db.pool.query<{ total: string }>(
              'SELECT total FROM orders WHERE tenant_id = $1 ORDER BY placed_at',
              [tenantId],
            )
          ).rows.map((row) => Number(row.total)),
        { timeout: 30_000 },
      )
      .toEqual([250, 500, 750]);
    expect(
      await countRows(
        `SELECT count(*) AS n FROM events WHERE type = 'OrderPlaced' AND data->>'tenantId' = $1`,
        [tenantId],
      ),
    ).toBe(3);
    await page.close();
  });

  it('a price changed while the order waited offline holds it for review, and the new total can be accepted', async () => {
    const { page, adminKey } = await openTill();
    await env.browser.context.setOffline(true);
    await page.getByTestId('connection').filter({ hasText: 'Offline' }).waitFor();
    await placeOrder(page, ['espresso', 'croissant']);
    await page.locator('[data-testid=queue] li[data-state=offline]').waitFor();

    await putMenuItems(env.api.url, adminKey, [
      { sku: 'espresso', name: 'Espresso', unitPrice: 300, currency: 'EUR' },
    ]);
    await env.browser.context.setOffline(false);

    await order(page, 1).and(page.locator('[data-status=held]')).waitFor({ timeout: 60_000 });
    expect(await order(page, 1).getByTestId('order-note').textContent()).toContain('€5.50, now €6.00');
    await saveScreenshot(page, 'till-held-for-review');

    await order(page, 1).locator('[data-action=accept]').click();
    await order(page, 1).and(page.locator('[data-status=placed]')).waitFor({ timeout: 30_000 });
    await pay(page, 'card', (button) => button.click());
    await saveScreenshot(page, 'till');
    await page.close();
  });
});
