import { asTenantId, menuStream, streamPrefixes } from '@once/domain';

/** A domain event of the run's tenant, as the log holds it. */
export interface LoggedEvent {
  readonly stream: string;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The names the tenant's domain streams start with: every aggregate's streams are `<prefix><tenant>-<id>`, but for
 * the tenant's one menu, `menu-<tenant>` (no other stream starts with it: tenant ids have one length).
 */
export const tenantStreamPrefixes = (tenantId: string): string[] => [
  ...Object.values(streamPrefixes).map((prefix) => `${prefix}${tenantId}-`),
  menuStream(asTenantId(tenantId)),
];

/** A charge the card gateway recorded. */
export interface GatewayCharge {
  readonly id: string;
  /** The merchant reference: the api sends the payment id. */
  readonly reference: string;
  readonly amount: number;
  readonly status: string;
}

/** An invoice as its read model serves it. */
export interface InvoiceReading {
  readonly id: string;
  readonly paid: number;
  readonly reserved: number;
}

/** An order as its read model serves it. */
export interface OrderReading {
  readonly id: string;
  readonly status: string;
  readonly saleId?: string;
}

/** Rows on which a read model and a fresh fold of the log disagree. */
export interface ReadModelDifference {
  readonly table: string;
  /** Rows the fresh fold has and the live read model lacks (or has otherwise). */
  readonly missing: number;
  /** Rows the live read model has and the fresh fold does not. */
  readonly extra: number;
}

/**
 * What the checker learns from the system after the run settled. A field left undefined could not be observed (a
 * black-box run sees only HTTP): the invariants that need it are reported as skipped, never as passed.
 */
export interface SystemFacts {
  readonly events?: readonly LoggedEvent[];
  readonly gatewayCharges?: readonly GatewayCharge[];
  readonly invoices?: readonly InvoiceReading[];
  readonly orders?: readonly OrderReading[];
  /** Keys the key table still shows in flight. */
  readonly keysInFlight?: readonly string[];
  readonly readModelDifferences?: readonly ReadModelDifference[];
}
