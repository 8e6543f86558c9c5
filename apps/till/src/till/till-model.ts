/** One menu item as `GET /menu` gives it. */
export interface MenuItem {
  readonly sku: string;
  readonly name: string;
  readonly unitPrice: number;
  readonly currency: string;
}

/** A line the cashier added: what and how many; the api prices it from its menu when the order arrives. */
export interface CartLine {
  readonly sku: string;
  readonly name: string;
  readonly quantity: number;
}

/** An invoice as the till last saw it. */
export interface InvoiceSummary {
  readonly id: string;
  readonly total: number;
  readonly paid: number;
  readonly outstanding: number;
  readonly payments: readonly { readonly id: string; readonly method: string; readonly status: string }[];
}

/** An order on this till, from the tap that placed it to its payment. */
export interface TillOrder {
  /** The key of the intent that placed it: the order's name on this till until the api gives it an id. */
  readonly localId: string;
  readonly number: number;
  readonly lines: readonly CartLine[];
  readonly currency: string;
  /** The total the till showed when the order was made. */
  readonly shownTotal: number;
  status: 'queued' | 'placed' | 'held' | 'served' | 'completed' | 'refused';
  orderId?: string;
  /** The total the api priced it at, from its menu when the order arrived. */
  total?: number;
  note?: string;
  invoice?: InvoiceSummary;
  /** The key of the payment intent in progress: a second tap while it is set is the same intent. */
  payingKey?: string;
  /** The key of the bill (invoice) intent once made. */
  billKey?: string;
}

/** What each intent in the queue is for, kept beside it (the queue itself stores only the HTTP request). */
export type Ticket =
  | { readonly kind: 'place' | 'approve' | 'serve' | 'complete' | 'bill'; readonly localId: string }
  | { readonly kind: 'pay'; readonly localId: string; readonly method: 'cash' | 'card' };

/** A ticket as the queue view shows it, once the api answered. */
export interface SentTicket {
  readonly key: string;
  readonly label: string;
  readonly outcome: 'delivered' | 'replayed' | 'refused' | 'expired';
  readonly detail: string;
  readonly at: string;
}

/** The till's state in this browser, per API key. */
export interface TillState {
  menu: MenuItem[];
  offlineSwitch: boolean;
  cart: CartLine[];
  orders: TillOrder[];
  tickets: Record<string, Ticket>;
  sent: SentTicket[];
  nextNumber: number;
}

export const emptyTillState = (): TillState => ({
  menu: [],
  offlineSwitch: false,
  cart: [],
  orders: [],
  tickets: {},
  sent: [],
  nextNumber: 1,
});
