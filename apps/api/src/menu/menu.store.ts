import type { Pool } from 'pg';
import type { Migration } from '@once/postgres';

/** One thing a café sells, at its current price (minor units of `currency`). */
export interface MenuItem {
  readonly sku: string;
  readonly name: string;
  readonly unitPrice: number;
  readonly currency: string;
  readonly updatedAt: string;
}

/**
 * The `menu_items` table: each tenant's current prices. It is configuration, not history: a till looks prices up
 * when it submits an order and sends the total it showed, so a price changed meanwhile holds the order for review.
 */
export const menuMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'menu items',
    sql: `CREATE TABLE menu_items (
      tenant_id  uuid        NOT NULL,
      sku        text        NOT NULL,
      name       text        NOT NULL,
      unit_price bigint      NOT NULL CHECK (unit_price >= 0),
      currency   text        NOT NULL,
      position   integer     NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, sku)
    );`,
  },
];

interface MenuRow {
  sku: string;
  name: string;
  unit_price: string;
  currency: string;
  updated_at: Date;
}

const toMenuItem = (row: MenuRow): MenuItem => ({
  sku: row.sku,
  name: row.name,
  unitPrice: Number(row.unit_price),
  currency: row.currency,
  updatedAt: row.updated_at.toISOString(),
});

/**
 * A tenant's menu, in the order its items were first added.
 *
 * @example
 * const items = await listMenu(pool, tenantId);
 */
export const listMenu = async (pool: Pool, tenantId: string): Promise<readonly MenuItem[]> => {
  const { rows } = await pool.query<MenuRow>(
    `SELECT sku, name, unit_price, currency, updated_at FROM menu_items WHERE tenant_id = $1
      ORDER BY position, sku`,
    [tenantId],
  );
  return rows.map(toMenuItem);
};

/**
 * Sets one item (added at the end of the menu, or repriced in place). Setting the same values again changes nothing
 * but `updatedAt`, so a retry is harmless without an idempotency key.
 *
 * @example
 * await putMenuItem(pool, tenantId, { sku: 'espresso', name: 'Espresso', unitPrice: 250, currency: 'EUR' });
 */
export const putMenuItem = async (
  pool: Pool,
  tenantId: string,
  item: Omit<MenuItem, 'updatedAt'>,
): Promise<MenuItem> => {
  const { rows } = await pool.query<MenuRow>(
    `INSERT INTO menu_items (tenant_id, sku, name, unit_price, currency, position)
       VALUES ($1, $2, $3, $4, $5,
               (SELECT coalesce(max(position), 0) + 1 FROM menu_items WHERE tenant_id = $1))
     ON CONFLICT (tenant_id, sku) DO UPDATE
       SET name = excluded.name, unit_price = excluded.unit_price, currency = excluded.currency, updated_at = now()
     RETURNING sku, name, unit_price, currency, updated_at`,
    [tenantId, item.sku, item.name, item.unitPrice, item.currency],
  );
  return toMenuItem(rows[0] as MenuRow);
};
