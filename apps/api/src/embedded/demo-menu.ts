import type { Pool } from 'pg';
import { listMenu, putMenuItem } from '../menu/index.js';

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
 * Gives the demo tenant a menu the first time (a price changed later by hand is kept across restarts).
 *
 * @example
 * await seedDemoMenu(app.pg, demoTenant.tenantId);
 */
export const seedDemoMenu = async (pool: Pool, tenantId: string): Promise<void> => {
  if ((await listMenu(pool, tenantId)).length > 0) return;
  for (const item of demoMenu) await putMenuItem(pool, tenantId, item);
};
