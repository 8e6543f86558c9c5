import type { RecordedEvent } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import { streamPrefixes } from '@once/domain';
import type { OrderEvent } from '@once/domain/orders';
import { defineTable, rowRef } from '@once/projections';
import type { ProjectionDefinition } from '@once/projections';

export type OrderRow = {
  tenant_id: string;
  order_id: string;
  status: 'placed' | 'held' | 'served' | 'completed';
  currency: string;
  total: number;
  lines: readonly unknown[];
  /** The total the client expected, while the order is held for review. */
  expected_total: number | null;
  placed_at: string;
  served_at: string | null;
  sale_id: string | null;
  completed_at: string | null;
  last_position: string;
};

export type SaleRow = {
  tenant_id: string;
  sale_id: string;
  order_id: string;
  currency: string;
  total: number;
  lines: readonly unknown[];
  recorded_at: string;
  last_position: string;
};

export const ordersTable = defineTable<OrderRow>({
  name: 'orders',
  columns: {
    tenant_id: { type: 'text' },
    order_id: { type: 'text' },
    status: { type: 'text' },
    currency: { type: 'text' },
    total: { type: 'bigint' },
    lines: { type: 'jsonb' },
    expected_total: { type: 'bigint', nullable: true },
    placed_at: { type: 'timestamptz' },
    served_at: { type: 'timestamptz', nullable: true },
    sale_id: { type: 'text', nullable: true },
    completed_at: { type: 'timestamptz', nullable: true },
    last_position: { type: 'text' },
  },
  primaryKey: ['tenant_id', 'order_id'],
});

/** One sale per order: the UNIQUE constraint makes a second sale of an order fail the batch loudly. */
export const salesTable = defineTable<SaleRow>({
  name: 'sales',
  columns: {
    tenant_id: { type: 'text' },
    sale_id: { type: 'text' },
    order_id: { type: 'text' },
    currency: { type: 'text' },
    total: { type: 'bigint' },
    lines: { type: 'jsonb' },
    recorded_at: { type: 'timestamptz' },
    last_position: { type: 'text' },
  },
  primaryKey: ['tenant_id', 'sale_id'],
  unique: [['tenant_id', 'order_id']],
});

const orderEventTypes: readonly OrderEvent['type'][] = [
  'OrderPlaced',
  'OrderHeldForReview',
  'OrderApproved',
  'OrderServed',
  'OrderCompleted',
  'SaleRecorded',
];

/** Orders through their life, and the sales they became, over the `order-` streams; mirrors the order decider. */
export const ordersProjection: ProjectionDefinition = {
  name: 'orders',
  version: 1,
  eventTypes: orderEventTypes,
  streamPrefixes: [streamPrefixes.order],
  tables: [ordersTable, salesTable],
  reads: (recorded) => {
    const event = recorded as RecordedEvent & OrderEvent;
    return event.type === 'SaleRecorded' || event.type === 'OrderPlaced'
      ? []
      : [rowRef(ordersTable, { tenant_id: event.data.tenantId, order_id: event.data.orderId })];
  },
  apply: async (tx, recorded) => {
    const event = recorded as RecordedEvent & OrderEvent;
    const position = formatPosition(recorded.position);
    const key = { tenant_id: event.data.tenantId, order_id: event.data.orderId };
    if (event.type === 'OrderPlaced') {
      tx.put(ordersTable, {
        ...key,
        status: 'placed',
        currency: event.data.total.currency,
        total: event.data.total.amount,
        lines: event.data.lines,
        expected_total: null,
        placed_at: event.data.placedAt,
        served_at: null,
        sale_id: null,
        completed_at: null,
        last_position: position,
      });
      return;
    }
    if (event.type === 'SaleRecorded') {
      tx.put(salesTable, {
        tenant_id: event.data.tenantId,
        sale_id: event.data.saleId,
        order_id: event.data.orderId,
        currency: event.data.total.currency,
        total: event.data.total.amount,
        lines: event.data.lines,
        recorded_at: event.data.recordedAt,
        last_position: position,
      });
      return;
    }
    const order = await tx.get(ordersTable, key);
    if (!order) return;
    switch (event.type) {
      case 'OrderHeldForReview':
        if (order.status === 'placed') {
          tx.put(ordersTable, {
            ...order,
            status: 'held',
            expected_total: event.data.expectedTotal.amount,
            last_position: position,
          });
        }
        return;
      case 'OrderApproved':
        if (order.status === 'held')
          tx.put(ordersTable, { ...order, status: 'placed', expected_total: null, last_position: position });
        return;
      case 'OrderServed':
        if (order.status === 'placed') {
          tx.put(ordersTable, {
            ...order,
            status: 'served',
            served_at: event.data.servedAt,
            last_position: position,
          });
        }
        return;
      case 'OrderCompleted':
        if (order.status === 'served') {
          tx.put(ordersTable, {
            ...order,
            status: 'completed',
            sale_id: event.data.saleId,
            completed_at: event.data.completedAt,
            last_position: position,
          });
        }
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  },
};
