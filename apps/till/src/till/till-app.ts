import { createIdempotentClient, createOfflineQueue, openBrowserIntentStorage, uuidV7 } from '@once/client';
import type { IntentRequest, QueueEvent } from '@once/client';
import { apiKeyFingerprint, callApi, problemText } from '../common/index.js';
import { addToCart, cartTotal, placeOrderBody } from './order-pricing.js';
import { applyRefusal, applySuccess, ticketLabel, toInvoiceSummary } from './ticket-outcome.js';
import type { MenuItem, Ticket, TillOrder, TillState } from './till-model.js';
import { loadTillState, saveTillState } from './till-storage.js';

/** One intent waiting in the queue, as the till shows it. */
export interface QueueItem {
  readonly key: string;
  readonly label: string;
  readonly state: 'sending' | 'waiting' | 'offline' | 'retrying';
  readonly detail?: string;
}

/** The till's actions and what it shows; `subscribe` is told after every change. */
export interface Till {
  readonly state: TillState;
  /** Whether the queue is sending (the switch is off and the browser is online). */
  readonly sending: boolean;
  readonly storageBackend: string;
  queueItems(): Promise<QueueItem[]>;
  subscribe(listener: () => void): void;
  addToCart(item: MenuItem): void;
  clearCart(): void;
  placeOrder(): Promise<void>;
  approve(order: TillOrder): Promise<void>;
  serve(order: TillOrder): Promise<void>;
  complete(order: TillOrder): Promise<void>;
  pay(order: TillOrder, method: 'cash' | 'card'): Promise<void>;
  setOfflineSwitch(offline: boolean): void;
}

const resyncIntervalMs = 5_000;
const sentShown = 12;

/**
 * Starts the till for one API key: its queue of intents in IndexedDB (one key per tap, stored before the first
 * attempt), sent in order while online; its orders and the purpose of each queued intent in local storage.
 * An order's request is fixed at the tap (items, quantities, the total shown): the api prices it when it arrives.
 *
 * @example
 * const till = await startTill(apiKey);
 * till.subscribe(() => render(till));
 */
export const startTill = async (apiKey: string): Promise<Till> => {
  const name = await apiKeyFingerprint(apiKey);
  const state = loadTillState(name);
  const storage = await openBrowserIntentStorage(`till-${name}`);
  const client = createIdempotentClient({
    storage,
    baseUrl: location.origin,
    headers: () => ({ authorization: `Bearer ${apiKey}` }),
    retry: { maxDelayMs: 2_000, maxRetries: 10, deadlineMs: 30_000 },
  });
  const queue = createOfflineQueue({
    client,
    online: false,
    retryIntervalMs: 2_000,
    maxAgeMs: 20 * 60 * 60 * 1000,
  });
  const listeners = new Set<() => void>();
  const failures = new Map<string, string>();
  let sending = false;

  const persist = () => saveTillState(name, state);
  const notify = () => {
    persist();
    for (const listener of listeners) listener();
  };
  const orderOf = (localId: string) => state.orders.find((order) => order.localId === localId);

  const fetchMenu = async (): Promise<MenuItem[] | undefined> => {
    try {
      const answer = await callApi<{ items: MenuItem[] }>(apiKey, 'GET', '/menu');
      return answer.ok ? answer.body.items : undefined;
    } catch {
      return undefined;
    }
  };

  /** Keeps the ticket first, then stores the intent: the queue never holds an intent whose purpose is unknown. */
  const enqueue = async (key: string, ticket: Ticket, request: IntentRequest): Promise<void> => {
    state.tickets[key] = ticket;
    persist();
    await queue.enqueue(request, { key });
    notify();
  };

  const bill = async (order: TillOrder) => {
    if (order.billKey || order.invoice || order.orderId === undefined || !order.total) return;
    const key = uuidV7();
    order.billKey = key;
    await enqueue(
      key,
      { kind: 'bill', localId: order.localId },
      {
        method: 'POST',
        path: '/invoices',
        body: { customerRef: `order ${String(order.number)}`, currency: order.currency, total: order.total },
      },
    );
  };

  const readInvoice = async (order: TillOrder, position: string | undefined) => {
    if (!order.invoice) return;
    try {
      const answer = await callApi(apiKey, 'GET', `/invoices/${order.invoice.id}`, {
        headers: position ? { 'once-min-position': position } : {},
      });
      if (answer.ok) order.invoice = toInvoiceSummary(answer.body);
    } catch {
      // The next payment or reload reads it again.
    }
  };

  const remember = (
    key: string,
    label: string,
    outcome: 'delivered' | 'replayed' | 'refused' | 'expired',
    detail: string,
  ) => {
    state.sent = [{ key, label, outcome, detail, at: new Date().toISOString() }, ...state.sent].slice(
      0,
      sentShown,
    );
  };

  const onQueueEvent = async (event: QueueEvent) => {
    if (event.type === 'drained' || event.type === 'storage-error') {
      notify();
      return;
    }
    const { key } = event.intent;
    const ticket = state.tickets[key];
    const order = ticket ? orderOf(ticket.localId) : undefined;
    const label = ticket
      ? ticketLabel(ticket, order)
      : `${event.intent.request.method} ${event.intent.request.path}`;
    switch (event.type) {
      case 'gave-up':
        failures.set(key, `no answer yet (${event.outcome.reason}); trying again with the same key`);
        notify();
        return;
      case 'blocked':
        failures.set(key, `the api refused the API key (${String(event.outcome.status)}); sign in again`);
        notify();
        return;
      case 'expired':
        remember(key, label, 'expired', 'waited too long to send safely; not sent');
        break;
      case 'rejected':
        remember(key, label, 'refused', problemText(event.outcome.problem));
        if (ticket && order) applyRefusal(order, ticket, problemText(event.outcome.problem));
        break;
      case 'succeeded': {
        remember(
          key,
          label,
          event.outcome.replayed ? 'replayed' : 'delivered',
          `${String(event.outcome.status)}`,
        );
        const next = ticket && order ? applySuccess(order, ticket, event.outcome.body) : undefined;
        if (order && next === 'bill') await bill(order);
        if (order && next === 'read-invoice')
          await readInvoice(order, event.outcome.headers['once-position']);
        break;
      }
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
    delete state.tickets[key];
    failures.delete(key);
    notify();
  };

  const syncOnce = async () => {
    if (state.offlineSwitch || !navigator.onLine) {
      sending = false;
      queue.setOnline(false);
      notify();
      return;
    }
    const menu = await fetchMenu();
    if (menu) state.menu = menu;
    sending = true;
    queue.setOnline(true);
    notify();
  };
  let syncing = Promise.resolve();
  const sync = () => {
    syncing = syncing.then(syncOnce, syncOnce);
    return syncing;
  };

  queue.subscribe((event) => void onQueueEvent(event));
  queue.start();
  addEventListener('online', () => void sync());
  addEventListener('offline', () => void sync());
  setInterval(() => void sync(), resyncIntervalMs);
  await sync();

  const orderCommand = async (order: TillOrder, kind: 'approve' | 'serve' | 'complete') => {
    if (order.orderId === undefined) return;
    await enqueue(
      uuidV7(),
      { kind, localId: order.localId },
      {
        method: 'POST',
        path: `/orders/${order.orderId}/${kind}`,
        body: {},
      },
    );
  };

  return {
    state,
    get sending() {
      return sending;
    },
    storageBackend: storage.backend,
    queueItems: async () => {
      const pending = await client.pendingIntents();
      return pending.map((intent, index) => {
        const ticket = state.tickets[intent.key];
        const failure = failures.get(intent.key);
        const label = ticket ? ticketLabel(ticket, orderOf(ticket.localId)) : intent.request.path;
        const waitingState = index === 0 ? (failure ? 'retrying' : 'sending') : 'waiting';
        return {
          key: intent.key,
          label,
          state: sending ? waitingState : 'offline',
          ...(failure && sending ? { detail: failure } : {}),
        };
      });
    },
    subscribe: (listener) => void listeners.add(listener),
    addToCart: (item) => {
      state.cart = addToCart(state.cart, item);
      notify();
    },
    clearCart: () => {
      state.cart = [];
      notify();
    },
    placeOrder: async () => {
      const lines = state.cart;
      const currency = state.menu[0]?.currency;
      if (lines.length === 0 || currency === undefined) return;
      // Taken at once: a second tap finds an empty cart.
      state.cart = [];
      const key = uuidV7();
      const shownTotal = cartTotal(lines, state.menu);
      const order: TillOrder = {
        localId: key,
        number: state.nextNumber,
        lines,
        currency,
        shownTotal,
        status: 'queued',
      };
      state.nextNumber += 1;
      state.orders = [order, ...state.orders];
      await enqueue(
        key,
        { kind: 'place', localId: key },
        { method: 'POST', path: '/orders', body: placeOrderBody(lines, shownTotal, currency) },
      );
    },
    approve: (order) => orderCommand(order, 'approve'),
    serve: (order) => orderCommand(order, 'serve'),
    complete: (order) => orderCommand(order, 'complete'),
    pay: async (order, method) => {
      const invoice = order.invoice;
      // One payment intent at a time per order: the second tap of a double tap is the same intent.
      if (order.payingKey || !invoice || invoice.outstanding <= 0) return;
      const key = uuidV7();
      order.payingKey = key;
      const amount = invoice.outstanding;
      await enqueue(
        key,
        { kind: 'pay', localId: order.localId, method },
        {
          method: 'POST',
          path: `/invoices/${invoice.id}/payments`,
          body:
            method === 'cash'
              ? { method, amount, currency: order.currency }
              : { method, amount, currency: order.currency, cardToken: 'tok_visa' },
        },
      );
    },
    setOfflineSwitch: (offline) => {
      state.offlineSwitch = offline;
      persist();
      void sync();
    },
  };
};
