import type { Pool, PoolClient } from 'pg';
import { migrate } from '@once/postgres';
import { migrateWebhookInbox } from '@once/webhooks/postgres';
import type { Migration } from '@once/postgres';

/** Where an order stands in the kitchen. */
export type TicketStatus = 'to-prepare' | 'held' | 'served' | 'completed';

export interface KitchenTicket {
  readonly orderId: string;
  readonly tenantId: string;
  readonly lines: readonly { readonly sku: string; readonly quantity: number }[];
  readonly status: TicketStatus;
  readonly placedAt: string;
}

const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'kitchen tickets and the registered endpoint',
    sql: `
      CREATE TABLE kitchen_tickets (
        order_id   text        PRIMARY KEY,
        tenant_id  text        NOT NULL,
        lines      jsonb       NOT NULL,
        status     text        NOT NULL,
        placed_at  timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE kitchen_endpoint (
        singleton       boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        idempotency_key text    NOT NULL,
        endpoint_id     text,
        secret          text
      );
    `,
  },
];

/** Creates the kitchen's tables and its webhook inbox. @example await migrateKitchen(pool); */
export const migrateKitchen = async (pool: Pool): Promise<void> => {
  await migrateWebhookInbox(pool);
  await migrate(pool, 'kitchen-display', migrations);
};

/** A Once webhook body (Standard Webhooks `{ type, timestamp, data }`), as far as the kitchen reads it. */
export interface OrderWebhook {
  readonly type: string;
  readonly data: {
    readonly tenantId?: string;
    readonly orderId?: string;
    readonly lines?: readonly { readonly sku: string; readonly quantity: number }[];
    readonly placedAt?: string;
  };
}

const statusAfter: Readonly<Record<string, TicketStatus>> = {
  OrderHeldForReview: 'held',
  OrderApproved: 'to-prepare',
  OrderServed: 'served',
  OrderCompleted: 'completed',
};

/**
 * Applies one order event to the tickets, on the inbox's connection (so in the inbox's transaction). Events of other
 * types, or without an order, change nothing.
 *
 * @example
 * await receiveWebhookOnce(pool, claim, (client) => applyOrderEvent(client, body));
 */
export const applyOrderEvent = async (client: PoolClient, message: OrderWebhook): Promise<void> => {
  const { orderId, tenantId } = message.data;
  if (!orderId || !tenantId) return;
  if (message.type === 'OrderPlaced') {
    await client.query(
      `INSERT INTO kitchen_tickets (order_id, tenant_id, lines, status, placed_at)
       VALUES ($1, $2, $3, 'to-prepare', $4) ON CONFLICT (order_id) DO NOTHING`,
      [
        orderId,
        tenantId,
        JSON.stringify((message.data.lines ?? []).map(({ sku, quantity }) => ({ sku, quantity }))),
        message.data.placedAt ?? new Date().toISOString(),
      ],
    );
    return;
  }
  const status = statusAfter[message.type];
  if (!status) return;
  await client.query('UPDATE kitchen_tickets SET status = $2, updated_at = now() WHERE order_id = $1', [
    orderId,
    status,
  ]);
};

/**
 * The tickets of one status, oldest first (`to-prepare` is what the kitchen shows).
 * @example const open = await listTickets(pool, 'to-prepare');
 */
export const listTickets = async (pool: Pool, status: TicketStatus): Promise<readonly KitchenTicket[]> => {
  const result = await pool.query<{
    order_id: string;
    tenant_id: string;
    lines: KitchenTicket['lines'];
    status: TicketStatus;
    placed_at: Date;
  }>(
    'SELECT order_id, tenant_id, lines, status, placed_at FROM kitchen_tickets WHERE status = $1 ORDER BY placed_at, order_id',
    [status],
  );
  return result.rows.map((row) => ({
    orderId: row.order_id,
    tenantId: row.tenant_id,
    lines: row.lines,
    status: row.status,
    placedAt: row.placed_at.toISOString(),
  }));
};
