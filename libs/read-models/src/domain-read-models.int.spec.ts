import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore } from '@once/event-store/postgres';
import type { EventStore, RecordedEvent } from '@once/event-store';
import { asTenantId, foldEvents, menuStream, streamPrefixes } from '@once/domain';
import { invoiceDecider } from '@once/domain/invoices';
import { menuDecider } from '@once/domain/menus';
import type { MenuEvent } from '@once/domain/menus';
import { orderDecider } from '@once/domain/orders';
import { stockCountDecider } from '@once/domain/stock-counts';
import type { InvoiceEvent } from '@once/domain/invoices';
import type { OrderEvent } from '@once/domain/orders';
import type { StockCountEvent } from '@once/domain/stock-counts';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import {
  ensureLiveVersion,
  getLiveVersion,
  migrateProjectionsSchema,
  physicalTableName,
  rebuildProjection,
  rebuildProjections,
  startProjectionRunner,
} from '@once/projections';
import type { ProjectionDefinition } from '@once/projections';
import { appendDomainWorkload } from './testing/index.js';
import { idempotencyKeysProjection } from './idempotency-keys/index.js';
import { getInvoice, getPayment, invoicesProjection } from './invoices/index.js';
import { listMenu, menusProjection } from './menus/index.js';
import { getOrder, getSaleByOrder, ordersProjection } from './orders/index.js';
import { getStockCount, stockCountsProjection } from './stock-counts/index.js';

let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase();
  store = createPostgresEventStore(db.pool);
  await migrateProjectionsSchema(db.pool);
});

afterAll(async () => {
  await store.close();
  await db.release();
});

const catchUp = async (projection: ProjectionDefinition, batchSize = 500): Promise<void> => {
  const live = await ensureLiveVersion(db.pool, projection);
  await startProjectionRunner({
    pool: db.pool,
    store,
    projection,
    version: live.version,
    batchSize,
    stopWhenCaughtUp: true,
  }).done;
};

const streamsOf = async (
  prefix: string,
  tenantIds: readonly string[],
): Promise<Map<string, RecordedEvent[]>> => {
  const streams = new Map<string, RecordedEvent[]>();
  const batch = await store.readAll({
    filter: { streamPrefixes: tenantIds.map((tenantId) => `${prefix}${tenantId}-`) },
    maxCount: 1_000_000,
  });
  for (const event of batch.events) streams.set(event.stream, [...(streams.get(event.stream) ?? []), event]);
  return streams;
};

const messages = <Event>(events: readonly RecordedEvent[]): Event[] =>
  events.map(({ type, data }) => ({ type, data }) as Event);

describe('domain read models', () => {
  it('equal a fresh fold of the log by the deciders after a random workload', async () => {
    const tenantIds = [freshTenantId(), freshTenantId()];
    await appendDomainWorkload(store, { seed: 2026, tenantIds, events: 1000, concurrency: 4 });
    await Promise.all([
      catchUp(invoicesProjection, 37),
      catchUp(ordersProjection, 111),
      catchUp(stockCountsProjection, 9),
      catchUp(menusProjection, 5),
    ]);

    for (const tenantId of tenantIds) {
      const events = await store.readStream(menuStream(asTenantId(tenantId)));
      const menu = foldEvents(menuDecider, messages<MenuEvent>(events));
      expect(menu.items.size).toBeGreaterThan(5);
      expect(await listMenu(db.pool, tenantId)).toEqual(
        [...menu.items.values()].map((item) => ({
          sku: item.sku,
          name: item.name,
          unitPrice: item.unitPrice.amount,
          currency: item.unitPrice.currency,
          updatedAt: item.changedAt,
        })),
      );
    }

    const invoices = await streamsOf(streamPrefixes.invoice, tenantIds);
    expect(invoices.size).toBeGreaterThan(10);
    for (const events of invoices.values()) {
      const state = foldEvents(invoiceDecider, messages<InvoiceEvent>(events));
      if (state.status !== 'issued')
        throw new Error('every generated invoice stream starts with InvoiceIssued');
      const payments = [...state.payments].map(([id, payment]) => ({
        id,
        invoiceId: state.invoiceId,
        status: payment.status,
        method: payment.status === 'recorded' ? payment.method : 'card',
        amount: payment.amount,
        currency: state.total.currency,
        ...(payment.status === 'captured' || payment.status === 'declined'
          ? { gatewayReference: payment.gatewayReference }
          : {}),
        ...(payment.status === 'declined' ? { declineReason: payment.reason } : {}),
      }));
      expect(await getInvoice(db.pool, state.tenantId, state.invoiceId)).toEqual({
        id: state.invoiceId,
        customerRef: state.customerRef,
        currency: state.total.currency,
        total: state.total.amount,
        paid: state.paid,
        reserved: state.reserved,
        outstanding: state.total.amount - state.paid - state.reserved,
        status: state.paid >= state.total.amount ? 'paid' : 'open',
        payments,
      });
      for (const payment of payments)
        expect(await getPayment(db.pool, state.tenantId, payment.id)).toEqual(payment);
      expect(await getInvoice(db.pool, freshTenantId(), state.invoiceId)).toBeUndefined();
    }

    const orders = await streamsOf(streamPrefixes.order, tenantIds);
    expect(orders.size).toBeGreaterThan(10);
    for (const events of orders.values()) {
      const state = foldEvents(orderDecider, messages<OrderEvent>(events));
      if (state.status === 'none') throw new Error('every generated order stream starts with OrderPlaced');
      const { order } = state;
      expect(await getOrder(db.pool, order.tenantId, order.orderId)).toEqual({
        id: order.orderId,
        status: state.status,
        currency: order.total.currency,
        total: order.total.amount,
        lines: order.lines,
        placedAt: order.placedAt,
        ...(state.status === 'held' ? { expectedTotal: state.expectedTotal.amount } : {}),
        ...(state.status === 'served' ? { servedAt: state.servedAt } : {}),
        ...(state.status === 'completed'
          ? { servedAt: expect.any(String) as string, saleId: state.saleId, completedAt: state.completedAt }
          : {}),
      });
      const sale = await getSaleByOrder(db.pool, order.tenantId, order.orderId);
      if (state.status === 'completed')
        expect(sale).toMatchObject({ id: state.saleId, orderId: order.orderId, total: order.total.amount });
      else expect(sale).toBeUndefined();
    }

    const counts = await streamsOf(streamPrefixes.stockCount, tenantIds);
    expect(counts.size).toBeGreaterThan(3);
    for (const events of counts.values()) {
      const state = foldEvents(stockCountDecider, messages<StockCountEvent>(events));
      if (state.status === 'none')
        throw new Error('every generated stock count stream starts with StockCountOpened');
      expect(await getStockCount(db.pool, state.tenantId, state.stockCountId)).toEqual({
        id: state.stockCountId,
        status: state.status,
        lines: [...state.lines].map(([sku, countedQuantity]) => ({ sku, countedQuantity })),
        openedAt: state.openedAt,
        ...(state.status === 'posted' ? { postedAt: state.postedAt } : {}),
      });
    }
  });

  it('rebuilds every read model in one pass into tables identical to the live ones, one of them resuming', async () => {
    const tenantIds = [freshTenantId()];
    await appendDomainWorkload(store, { seed: 77, tenantIds, events: 600, concurrency: 3, withKeys: true });
    const projections = [
      idempotencyKeysProjection,
      invoicesProjection,
      ordersProjection,
      stockCountsProjection,
      menusProjection,
    ];
    for (const projection of projections) await catchUp(projection);
    const before = new Map<string, number | undefined>();
    for (const projection of projections)
      before.set(projection.name, (await getLiveVersion(db.pool, projection.name))?.version);

    // An earlier, interrupted rebuild of invoices: the pass below must resume it from its own checkpoint.
    const interrupt = new AbortController();
    let batches = 0;
    const partial = await rebuildProjection({
      pool: db.pool,
      store,
      projection: invoicesProjection,
      batchSize: 50,
      signal: interrupt.signal,
      onProgress: () => {
        batches += 1;
        if (batches === 3) interrupt.abort();
      },
    });
    expect(partial).toMatchObject({ status: 'interrupted' });

    const outcomes = await rebuildProjections({ pool: db.pool, store, projections, batchSize: 173 });
    expect(outcomes.find((outcome) => outcome.projection === 'invoices')).toMatchObject({
      version: partial.version,
    });
    for (const projection of projections) {
      const outcome = outcomes.find((candidate) => candidate.projection === projection.name);
      expect(outcome).toMatchObject({ status: 'live', previous: before.get(projection.name) });
      for (const table of projection.tables) {
        const live = physicalTableName(table, before.get(projection.name) ?? 0);
        const rebuilt = physicalTableName(table, outcome?.version ?? 0);
        const rows = await db.pool.query<{ count: string }>(`SELECT count(*) FROM ${rebuilt}`);
        expect(Number(rows.rows[0]?.count)).toBeGreaterThan(0);
        const difference = await db.pool.query<{ count: string }>(
          `SELECT count(*) FROM ((TABLE ${live} EXCEPT ALL TABLE ${rebuilt}) UNION ALL (TABLE ${rebuilt} EXCEPT ALL TABLE ${live})) AS d`,
        );
        expect(Number(difference.rows[0]?.count), `${table.name}: rows that differ`).toBe(0);
      }
    }
  });

  it('refuses a second sale of one order (UNIQUE tenant_id, order_id) instead of showing two', async () => {
    const projection = { ...ordersProjection, name: 'orders_unique_sale' };
    const tenantId = freshTenantId();
    const sale = (saleId: string) => ({
      id: crypto.randomUUID(),
      type: 'SaleRecorded',
      data: {
        tenantId,
        saleId,
        orderId: 'o-1',
        lines: [],
        total: { amount: 100, currency: 'EUR' },
        recordedAt: '2026-01-01T00:00:00.000Z',
      },
    });
    await store.appendToStream(`order-${tenantId}-o-1`, [sale('s-1'), sale('s-2')], {
      expectedRevision: 'no_stream',
    });
    const live = await ensureLiveVersion(db.pool, projection);
    const runner = startProjectionRunner({
      pool: db.pool,
      store,
      projection,
      version: live.version,
      stopWhenCaughtUp: true,
    });
    await expect(runner.done).rejects.toMatchObject({ code: '23505' });
  });
});
