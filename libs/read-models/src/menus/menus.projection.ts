import type { RecordedEvent } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import { streamPrefixes } from '@once/domain';
import type { MenuEvent } from '@once/domain/menus';
import { defineTable, rowRef } from '@once/projections';
import type { ProjectionDefinition } from '@once/projections';

export type MenuEntryRow = {
  tenant_id: string;
  sku: string;
  name: string;
  unit_price: number;
  currency: string;
  /** Where the item was (last) added in the global order: the menu lists items in this order. */
  added_position: string;
  /** When its name or price last changed (or it was added). */
  changed_at: string;
  last_position: string;
};

/** The items on each tenant's menu now; a withdrawn item's row is deleted. */
export const menuEntriesTable = defineTable<MenuEntryRow>({
  name: 'menu_entries',
  columns: {
    tenant_id: { type: 'text' },
    sku: { type: 'text' },
    name: { type: 'text' },
    unit_price: { type: 'bigint' },
    currency: { type: 'text' },
    added_position: { type: 'text' },
    changed_at: { type: 'timestamptz' },
    last_position: { type: 'text' },
  },
  primaryKey: ['tenant_id', 'sku'],
});

const menuEventTypes: readonly MenuEvent['type'][] = [
  'MenuItemAdded',
  'MenuItemRepriced',
  'MenuItemRenamed',
  'MenuItemWithdrawn',
];

/** Each tenant's menu over the `menu-` streams, for `GET /menu`; mirrors the menu decider. */
export const menusProjection: ProjectionDefinition = {
  name: 'menu_entries',
  version: 1,
  eventTypes: menuEventTypes,
  streamPrefixes: [streamPrefixes.menu],
  tables: [menuEntriesTable],
  reads: (recorded) => {
    const event = recorded as RecordedEvent & MenuEvent;
    return [rowRef(menuEntriesTable, { tenant_id: event.data.tenantId, sku: event.data.sku })];
  },
  apply: async (tx, recorded) => {
    const event = recorded as RecordedEvent & MenuEvent;
    const position = formatPosition(recorded.position);
    const key = { tenant_id: event.data.tenantId, sku: event.data.sku };
    if (event.type === 'MenuItemAdded') {
      tx.put(menuEntriesTable, {
        ...key,
        name: event.data.name,
        unit_price: event.data.unitPrice.amount,
        currency: event.data.unitPrice.currency,
        added_position: position,
        changed_at: event.data.addedAt,
        last_position: position,
      });
      return;
    }
    const entry = await tx.get(menuEntriesTable, key);
    if (!entry) return;
    switch (event.type) {
      case 'MenuItemRepriced':
        tx.put(menuEntriesTable, {
          ...entry,
          unit_price: event.data.unitPrice.amount,
          currency: event.data.unitPrice.currency,
          changed_at: event.data.repricedAt,
          last_position: position,
        });
        return;
      case 'MenuItemRenamed':
        tx.put(menuEntriesTable, {
          ...entry,
          name: event.data.name,
          changed_at: event.data.renamedAt,
          last_position: position,
        });
        return;
      case 'MenuItemWithdrawn':
        tx.delete(menuEntriesTable, key);
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  },
};
