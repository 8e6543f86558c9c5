import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chromiumPresent, chromiumSkipNote } from '@once/testing';
import { createHttp, saveScreenshot, signIn, useBrowserTestApi } from '../testing/index.js';

const SKIP_NOTE = chromiumSkipNote('the console test');
if (!chromiumPresent) console.warn(`console.e2e.spec.ts${SKIP_NOTE}`);

describe.skipIf(!chromiumPresent)(`the operator console in headless Chromium${SKIP_NOTE}`, () => {
  const env = useBrowserTestApi({ viewport: { width: 1400, height: 900 } });

  it('shows the timeline of a key that went through a card payment, with its recovery point', async () => {
    const tenant = await env.api.tenant();
    const http = createHttp(env.api.url);
    const invoice = await http.post('/invoices', {
      apiKey: tenant.alice,
      key: randomUUID(),
      body: { currency: 'EUR', total: 900 },
    });
    const key = randomUUID();
    const payment = await http.post(`/invoices/${invoice.json<{ id: string }>().id}/payments`, {
      apiKey: tenant.alice,
      key,
      body: { method: 'card', amount: 900, currency: 'EUR', cardToken: 'tok_visa' },
    });
    expect(payment.status).toBe(201);
    const paymentId = payment.json<{ id: string }>().id;
    const replay = await http.post(`/invoices/${invoice.json<{ id: string }>().id}/payments`, {
      apiKey: tenant.alice,
      key,
      body: { method: 'card', amount: 900, currency: 'EUR', cardToken: 'tok_visa' },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    // olga, an operator of the same tenant, reads alice's key: the console is tenant-scoped, not actor-scoped.
    const page = await env.browser.context.newPage();
    await signIn(page, `${env.api.url}/console`, tenant.olga);
    const timeline = page.locator(`[data-testid=key-timeline][data-key="${key}"]`);
    await page.fill('#lookup', key);
    await expect
      .poll(
        async () => {
          await page.click('#look-up');
          return timeline.locator('[data-kind=completed]').count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    const kinds = await Promise.all(
      (await timeline.locator('.entry').all()).map((entry) => entry.getAttribute('data-kind')),
    );
    expect(kinds[0]).toBe('claimed');
    expect(kinds).toContain('recovery-point');
    expect(kinds.at(-1)).toBe('completed');
    expect(await timeline.locator('.response summary').textContent()).toBe('Stored response: 201');
    expect(await timeline.locator('.response pre').textContent()).toContain(paymentId);
    // The service's own counters: one first answer and one replay on the payments route.
    await expect
      .poll(() =>
        page
          .locator('[data-testid=route-rates] tr', { hasText: 'POST /invoices/:id/payments' })
          .textContent(),
      )
      .toContain('50.0 %');
    await saveScreenshot(page, 'console-key-timeline', { fullPage: true });

    // By the resource it created: the payment's id finds the same key.
    await page.fill('#lookup', paymentId);
    await page.click('#look-up');
    await timeline.waitFor();
    await page.close();
  });
});
