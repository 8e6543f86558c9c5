import { setTimeout as sleep } from 'node:timers/promises';
import { asTenantId, menuStream } from '@once/domain';
import type { IdempotencyEngine, IdempotencyScope } from '@once/idempotency';
import { setMenuItem, setMenuItemHandler } from '@once/cafe';

/** What the demo café sells (EUR cents). */
export const demoMenu = [
  { sku: 'espresso', name: 'Espresso', unitPrice: 250, currency: 'EUR' },
  { sku: 'flat-white', name: 'Flat white', unitPrice: 450, currency: 'EUR' },
  { sku: 'cappuccino', name: 'Cappuccino', unitPrice: 420, currency: 'EUR' },
  { sku: 'croissant', name: 'Croissant', unitPrice: 300, currency: 'EUR' },
  { sku: 'banana-bread', name: 'Banana bread', unitPrice: 380, currency: 'EUR' },
  { sku: 'orange-juice', name: 'Orange juice', unitPrice: 500, currency: 'EUR' },
] as const;

/**
 * Gives the demo tenant a menu the first time, through the menu's own command (`SetMenuItem`, one key per item, so
 * two processes seeding at once add each item once). A menu with any history is left alone: a price changed later
 * by hand is kept across restarts.
 *
 * @example
 * await seedDemoMenu(app.idempotency.engine, { tenantId: demoTenant.tenantId, actorId: ada.actorId });
 */
export const seedDemoMenu = async (engine: IdempotencyEngine, scope: IdempotencyScope): Promise<void> => {
  if ((await engine.store.readStream(menuStream(asTenantId(scope.tenantId)))).length > 0) return;
  for (const { sku, ...body } of demoMenu) {
    const input = { params: { sku }, body };
    const data = setMenuItem.fromInput(input);
    if (data === undefined) throw new Error(`the demo menu's ${sku} is not a valid menu item`);
    const execute = () =>
      engine.execute({
        scope,
        key: `demo-menu-${sku}`,
        request: { method: 'PUT', route: '/menu/items/:sku', ...input },
        command: { type: setMenuItem.type, version: setMenuItem.version, data },
        handler: setMenuItemHandler,
      });
    let outcome = await execute();
    // Another process seeding the same item holds its key for a moment: wait, then read its answer.
    for (let attempt = 0; attempt < 10 && outcome.kind === 'in-flight'; attempt += 1) {
      await sleep(outcome.retryAfterSeconds * 1000);
      outcome = await execute();
    }
    if (outcome.kind !== 'first' && outcome.kind !== 'replay') {
      throw new Error(`seeding the demo menu's ${sku} ended ${outcome.kind}`);
    }
  }
};
