// Generated from the api's OpenAPI document (GET /docs/json): do not edit. After changing a command route,
// `npx vitest run apps/api/src/client-contract --update` writes it again (CI fails while it differs from the api).

/** The answer of POST /invoices/{id}/payments, POST /payments/{id}/resolve. */
export interface OncePayment {
  readonly id: string;
  readonly invoiceId: string;
  readonly status: 'recorded' | 'reserved' | 'captured' | 'declined';
  readonly method: 'cash' | 'card';
  readonly amount: number;
  readonly currency: string;
  readonly gatewayReference?: string;
  readonly declineReason?: string;
}

/** The answer of POST /orders, POST /orders/{id}/approve, POST /orders/{id}/complete, POST /orders/{id}/serve. */
export interface OnceOrder {
  readonly id: string;
  readonly status: 'placed' | 'held' | 'served' | 'completed';
  readonly currency: string;
  readonly total: number;
  readonly lines: readonly { readonly sku: string; readonly quantity: number; readonly unitPrice: number }[];
  readonly placedAt: string;
  readonly expectedTotal?: number;
  readonly servedAt?: string;
  readonly saleId?: string;
  readonly completedAt?: string;
}

/** The answer of POST /stock-counts, POST /stock-counts/{id}/lines, POST /stock-counts/{id}/post. */
export interface OnceStockCount {
  readonly id: string;
  readonly status: 'open' | 'posted';
  readonly lines: readonly { readonly sku: string; readonly countedQuantity: number }[];
  readonly openedAt: string;
  readonly postedAt?: string;
}

/** The answer of POST /webhook-endpoints, POST /webhook-endpoints/{id}/rotate-secret. */
export interface OnceWebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly status: 'enabled' | 'disabled';
  readonly registeredAt: string;
  readonly previousSecretExpiresAt: string | null;
  readonly secret: string;
}

/** The answer of POST /webhook-endpoints/{id}/disable, POST /webhook-endpoints/{id}/enable. */
export interface OnceWebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly status: 'enabled' | 'disabled';
  readonly disabledReason: string | null;
  readonly registeredAt: string;
  readonly previousSecretExpiresAt: string | null;
}

/** Every command route of the Once api (a POST with an Idempotency-Key): path parameters, body, success body. */
export interface OnceCommandRoutes {
  /** Issue an invoice (its id is derived from the Idempotency-Key) */
  'POST /invoices': {
    readonly params: Record<string, never>;
    readonly body:
      | {
          readonly customerRef?: string;
          readonly currency: string;
          readonly lines: readonly {
            readonly description: string;
            readonly quantity: number;
            readonly unitPrice: number;
          }[];
        }
      | { readonly customerRef?: string; readonly currency: string; readonly total: number };
    readonly response: {
      readonly id: string;
      readonly customerRef: string;
      readonly currency: string;
      readonly total: number;
      readonly paid: number;
      readonly reserved: number;
      readonly outstanding: number;
      readonly status: 'open' | 'paid';
      readonly payments: readonly {
        readonly id: string;
        readonly invoiceId: string;
        readonly status: 'recorded' | 'reserved' | 'captured' | 'declined';
        readonly method: 'cash' | 'card';
        readonly amount: number;
        readonly currency: string;
        readonly gatewayReference?: string;
        readonly declineReason?: string;
      }[];
    };
  };
  /** Pay an invoice: cash at once, or a card through the gateway (never above the balance) */
  'POST /invoices/{id}/payments': {
    readonly params: { readonly id: string };
    readonly body:
      | { readonly method: 'cash'; readonly amount: number; readonly currency: string }
      | {
          readonly method: 'card';
          readonly amount: number;
          readonly currency: string;
          readonly cardToken: string;
        };
    readonly response: OncePayment;
  };
  /** Place an order (its id is derived from the Idempotency-Key) */
  'POST /orders': {
    readonly params: Record<string, never>;
    readonly body: {
      readonly currency: string;
      readonly lines: readonly { readonly sku: string; readonly quantity: number }[];
      readonly expectedTotal?: number;
    };
    readonly response: OnceOrder;
  };
  /** Accept the current total of an order held for review */
  'POST /orders/{id}/approve': {
    readonly params: { readonly id: string };
    readonly body: Record<string, never>;
    readonly response: OnceOrder;
  };
  /** Complete a served order: it becomes a sale, exactly once */
  'POST /orders/{id}/complete': {
    readonly params: { readonly id: string };
    readonly body: Record<string, never>;
    readonly response: OnceOrder;
  };
  /** Mark an order served */
  'POST /orders/{id}/serve': {
    readonly params: { readonly id: string };
    readonly body: Record<string, never>;
    readonly response: OnceOrder;
  };
  /** Resolve a card payment that needs attention (operator keys) */
  'POST /payments/{id}/resolve': {
    readonly params: { readonly id: string };
    readonly body: { readonly action: 'inquire' | 'mark-declined'; readonly note?: string };
    readonly response: OncePayment;
  };
  /** Open a stock count (its id is derived from the Idempotency-Key) */
  'POST /stock-counts': {
    readonly params: Record<string, never>;
    readonly body: Record<string, never>;
    readonly response: OnceStockCount;
  };
  /** Record a counted line (the same sku again replaces its line) */
  'POST /stock-counts/{id}/lines': {
    readonly params: { readonly id: string };
    readonly body: { readonly sku: string; readonly countedQuantity: number };
    readonly response: OnceStockCount;
  };
  /** Post a stock count, exactly once */
  'POST /stock-counts/{id}/post': {
    readonly params: { readonly id: string };
    readonly body: Record<string, never>;
    readonly response: OnceStockCount;
  };
  /** Register a webhook endpoint (its id is derived from the Idempotency-Key; the secret is shown here) */
  'POST /webhook-endpoints': {
    readonly params: Record<string, never>;
    readonly body: { readonly url: string; readonly eventTypes: readonly string[] };
    readonly response: OnceWebhookEndpoint;
  };
  /** Stop deliveries until enabled again */
  'POST /webhook-endpoints/{id}/disable': {
    readonly params: { readonly id: string };
    readonly body: Record<string, never>;
    readonly response: OnceWebhookEndpoint;
  };
  /** Enable deliveries again: what was held while disabled goes out, in log order */
  'POST /webhook-endpoints/{id}/enable': {
    readonly params: { readonly id: string };
    readonly body: Record<string, never>;
    readonly response: OnceWebhookEndpoint;
  };
  /** Rotate the secret (the previous one keeps signing during the grace period) */
  'POST /webhook-endpoints/{id}/rotate-secret': {
    readonly params: { readonly id: string };
    readonly body: { readonly gracePeriodSeconds?: number };
    readonly response: OnceWebhookEndpoint;
  };
}
