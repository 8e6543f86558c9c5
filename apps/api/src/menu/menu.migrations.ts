import type { Migration } from '@once/postgres';

/**
 * The api's own `menu_items` table of the first format, where `PUT /menu/items/:sku` wrote prices in place. The menu
 * is an aggregate now (its events on the tenant's `menu-` stream, its read model `menu_entries`): the table goes.
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
  {
    version: 2,
    name: 'the menu is event-sourced: its read model replaces the table',
    sql: 'DROP TABLE menu_items;',
  },
];
