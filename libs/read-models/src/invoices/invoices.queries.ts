import type { Pool } from 'pg';
import { fromDatabase } from '@once/projections';
import type { InvoiceRow, PaymentRow } from './invoices.projection.js';
import { invoicesTable, paymentsTable } from './invoices.projection.js';

/** A payment as the read model shows it (the API's payment view). */
export interface PaymentReadModel {
  readonly id: string;
  readonly invoiceId: string;
  readonly status: PaymentRow['status'];
  readonly method: PaymentRow['method'];
  readonly amount: number;
  readonly currency: string;
  readonly gatewayReference?: string;
  readonly declineReason?: string;
}

/** An invoice with its payments in the order they were made (the API's invoice view). */
export interface InvoiceReadModel {
  readonly id: string;
  readonly customerRef: string;
  readonly currency: string;
  readonly total: number;
  readonly paid: number;
  readonly reserved: number;
  readonly outstanding: number;
  readonly status: InvoiceRow['status'];
  readonly payments: readonly PaymentReadModel[];
}

const toPayment = (row: PaymentRow): PaymentReadModel => ({
  id: row.payment_id,
  invoiceId: row.invoice_id,
  status: row.status,
  method: row.method,
  amount: row.amount,
  currency: row.currency,
  ...(row.gateway_reference === null ? {} : { gatewayReference: row.gateway_reference }),
  ...(row.decline_reason === null ? {} : { declineReason: row.decline_reason }),
});

/**
 * One invoice of a tenant with its payments, from the live read model; undefined when the tenant has no such invoice.
 *
 * @example
 * const invoice = await getInvoice(pool, tenantId, invoiceId);
 */
export const getInvoice = async (
  pool: Pool,
  tenantId: string,
  invoiceId: string,
): Promise<InvoiceReadModel | undefined> => {
  const result = await pool.query<Record<string, unknown> & { payment_rows: Record<string, unknown>[] }>(
    `SELECT i.*, COALESCE(
        (SELECT json_agg(p ORDER BY p.created_position) FROM payments p
          WHERE p.tenant_id = i.tenant_id AND p.invoice_id = i.invoice_id), '[]'::json) AS payment_rows
       FROM invoices i WHERE i.tenant_id = $1 AND i.invoice_id = $2`,
    [tenantId, invoiceId],
  );
  const raw = result.rows[0];
  if (!raw) return undefined;
  const row = fromDatabase(invoicesTable, raw) as InvoiceRow;
  return {
    id: row.invoice_id,
    customerRef: row.customer_ref,
    currency: row.currency,
    total: row.total,
    paid: row.paid,
    reserved: row.reserved,
    outstanding: row.outstanding,
    status: row.status,
    payments: raw.payment_rows.map((payment) =>
      toPayment(fromDatabase(paymentsTable, payment) as PaymentRow),
    ),
  };
};

/**
 * One payment of a tenant, from the live read model.
 *
 * @example
 * const payment = await getPayment(pool, tenantId, paymentId);
 */
export const getPayment = async (
  pool: Pool,
  tenantId: string,
  paymentId: string,
): Promise<PaymentReadModel | undefined> => {
  const result = await pool.query<Record<string, unknown>>(
    'SELECT * FROM payments WHERE tenant_id = $1 AND payment_id = $2',
    [tenantId, paymentId],
  );
  const raw = result.rows[0];
  return raw ? toPayment(fromDatabase(paymentsTable, raw) as PaymentRow) : undefined;
};
