import type { Pool } from 'pg';
import { fromDatabase } from '@once/projections';
import type { MenuEntryRow } from './menus.projection.js';
import { menuEntriesTable } from './menus.projection.js';

/** One item of a menu as the read model shows it (the API's menu item view). */
export interface MenuItemReadModel {
  readonly sku: string;
  readonly name: string;
  /** Minor units of `currency`. */
  readonly unitPrice: number;
  readonly currency: string;
  /** When its name or price last changed (or it was added). */
  readonly updatedAt: string;
}

/**
 * A tenant's menu from the live read model, in the order its items were added.
 *
 * @example
 * const items = await listMenu(pool, tenantId);
 */
export const listMenu = async (pool: Pool, tenantId: string): Promise<readonly MenuItemReadModel[]> => {
  const result = await pool.query<Record<string, unknown>>(
    'SELECT * FROM menu_entries WHERE tenant_id = $1 ORDER BY added_position, sku',
    [tenantId],
  );
  return result.rows.map((raw) => {
    const row = fromDatabase(menuEntriesTable, raw) as MenuEntryRow;
    return {
      sku: row.sku,
      name: row.name,
      unitPrice: row.unit_price,
      currency: row.currency,
      updatedAt: row.changed_at,
    };
  });
};
