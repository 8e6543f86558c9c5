import { randomUUID } from 'node:crypto';
import type { EventStore, EventToAppend } from '@once/event-store';
import type { Decider, Message } from '@once/domain';
import {
  asCustomerRef,
  asInvoiceId,
  asOrderId,
  asPaymentId,
  asSaleId,
  asSku,
  asStockCountId,
  asTenantId,
  invoiceStream,
  menuStream,
  money,
  orderStream,
  stockCountStream,
} from '@once/domain';
import { invoiceDecider } from '@once/domain/invoices';
import { menuDecider } from '@once/domain/menus';
import type { MenuCommand, MenuState } from '@once/domain/menus';
import { orderDecider } from '@once/domain/orders';
import { stockCountDecider } from '@once/domain/stock-counts';
import type { InvoiceCommand } from '@once/domain/invoices';
import type { OrderCommand } from '@once/domain/orders';
import type { StockCountCommand } from '@once/domain/stock-counts';
import { keyStreamName } from '@once/idempotency/key-log';
import { seededRandom } from '@once/projections/testing';

/** One append of a generated workload. */
export interface WorkloadAppend {
  readonly stream: string;
  readonly events: readonly EventToAppend[];
}

export interface DomainWorkloadOptions {
  readonly seed: number;
  readonly tenantIds: readonly string[];
  /** Roughly how many events to generate (the last aggregate may go a little over). */
  readonly events: number;
  /** Also write a key stream (claimed + completed) for every command, as the api's atomic protocol does. */
  readonly withKeys?: boolean;
}

interface PendingStream {
  readonly stream: string;
  readonly events: EventToAppend[];
}

const decideAll = <Command extends Message, Event extends Message, State>(
  decider: Decider<Command, Event, State>,
  commands: readonly Command[],
): { events: Event[]; decided: Command[] } => {
  let state = decider.initialState();
  const events: Event[] = [];
  const decided: Command[] = [];
  for (const command of commands) {
    try {
      const produced = decider.decide(command, state);
      state = produced.reduce(decider.evolve, state);
      events.push(...produced);
      decided.push(command);
    } catch {
      // A rule said no (e.g. a payment above the balance): nothing is written, as in the api.
    }
  }
  return { events, decided };
};

/**
 * A seeded random workload of invoices with payments (cash and card, captured or declined), a menu per tenant,
 * orders priced from it (held, approved, served, completed into sales) and stock counts, decided by the real deciders, as appends in an
 * interleaved order. With `withKeys`, each command also gets its key stream, claimed and completed.
 *
 * @example
 * for (const append of generateDomainWorkload({ seed: 1, tenantIds: ['t1'], events: 1000 })) { ... }
 */
export function* generateDomainWorkload(options: DomainWorkloadOptions): Generator<WorkloadAppend> {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const base = Date.UTC(2026, 0, 1);
  let tick = 0;
  const at = (): string => new Date(base + (tick += 1 + Math.floor(random() * 5000))).toISOString();
  const active: PendingStream[] = [];
  let generated = 0;
  let serial = 0;

  const keyEvents = (tenantId: string, command: Message, route: string): PendingStream => {
    const actorId = `actor-${Math.floor(random() * 5)}`;
    const key = `key-${options.seed}-${serial}-${Math.floor(random() * 1e9)}`;
    const requestHash = randomUUID().replaceAll('-', '').repeat(2);
    const claimedAt = at();
    const response = {
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ok: serial }),
    };
    if (random() < 0.5) {
      // Claimed and completed in one commit (the atomic protocol): one event is the key's whole log.
      return {
        stream: keyStreamName({ tenantId, actorId }, key),
        events: [
          {
            id: randomUUID(),
            type: 'IdempotencyKeyCompleted',
            data: {
              method: 'POST',
              route,
              requestHash,
              response,
              holder: 'api-0',
              claim: { tenantId, actorId, key },
            },
          },
        ],
      };
    }
    return {
      stream: keyStreamName({ tenantId, actorId }, key),
      events: [
        {
          id: randomUUID(),
          type: 'IdempotencyKeyClaimed',
          data: {
            method: 'POST',
            route,
            requestHash,
            tenantId,
            actorId,
            key,
            request: { params: {}, body: command.data },
            holder: `api-${Math.floor(random() * 3)}`,
            claimedAt,
            leaseExpiresAt: new Date(Date.parse(claimedAt) + 30_000).toISOString(),
          },
        },
        {
          id: randomUUID(),
          type: 'IdempotencyKeyCompleted',
          data: {
            method: 'POST',
            route,
            requestHash,
            response,
            holder: 'api-0',
          },
        },
      ],
    };
  };

  // Each tenant's menu: added, repriced and renamed, one item withdrawn; orders are priced from its final state.
  const menuSkus = 12;
  const menus = new Map<string, MenuState>();
  for (const tenant of options.tenantIds) {
    const tenantId = asTenantId(tenant);
    const plan: MenuCommand[] = Array.from({ length: menuSkus }, (_, index) => ({
      type: 'SetMenuItem',
      data: {
        tenantId,
        sku: asSku(`sku-${index}`),
        name: `Item ${index}`,
        unitPrice: 150 + Math.floor(random() * 500),
        currency: 'EUR',
        setAt: at(),
      },
    }));
    for (let index = 0; index < 6; index += 1) {
      const sku = Math.floor(random() * menuSkus);
      plan.push({
        type: 'SetMenuItem',
        data: {
          tenantId,
          sku: asSku(`sku-${sku}`),
          name: random() < 0.5 ? `Item ${sku}` : `Item ${sku} (new)`,
          unitPrice: 150 + Math.floor(random() * 500),
          currency: 'EUR',
          setAt: at(),
        },
      });
    }
    plan.push({
      type: 'WithdrawMenuItem',
      data: { tenantId, sku: asSku(`sku-${Math.floor(random() * menuSkus)}`), withdrawnAt: at() },
    });
    const { events } = decideAll(menuDecider, plan);
    menus.set(tenant, events.reduce(menuDecider.evolve, menuDecider.initialState()));
    active.push({
      stream: menuStream(tenantId),
      events: events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data })),
    });
    generated += events.length;
  }
  const menuOf = (tenantId: string): MenuState => menus.get(tenantId) ?? menuDecider.initialState();

  const addAggregate = (): void => {
    serial += 1;
    const tenantId = asTenantId(pick(options.tenantIds));
    const roll = random();
    let stream: string;
    let events: Message[];
    let commands: Message[];
    let route: string;
    if (roll < 0.5) {
      const invoiceId = asInvoiceId(`inv-${options.seed}-${serial}`);
      const currency = pick(['EUR', 'USD']);
      const total = 500 + Math.floor(random() * 20_000);
      const plan: InvoiceCommand[] = [
        {
          type: 'IssueInvoice',
          data: {
            tenantId,
            invoiceId,
            customerRef: asCustomerRef(`cust-${Math.floor(random() * 100)}`),
            currency,
            issuedAt: at(),
            ...(random() < 0.5
              ? { total }
              : {
                  lines: [
                    {
                      description: 'coffee',
                      quantity: 1 + Math.floor(random() * 4),
                      unitPrice: 100 + Math.floor(random() * 900),
                    },
                  ],
                }),
          },
        },
      ];
      const payments = Math.floor(random() * 4);
      for (let index = 0; index < payments; index += 1) {
        const paymentId = asPaymentId(`pay-${options.seed}-${serial}-${index}`);
        const amount = money(1 + Math.floor(random() * total * 0.6), currency);
        if (random() < 0.5) {
          plan.push({
            type: 'RecordPayment',
            data: { invoiceId, paymentId, amount, method: pick(['cash', 'card'] as const), recordedAt: at() },
          });
        } else {
          plan.push({ type: 'ReserveCardPayment', data: { invoiceId, paymentId, amount, reservedAt: at() } });
          const outcome = random();
          if (outcome < 0.85) {
            plan.push({
              type: 'RecordCardCharge',
              data: {
                invoiceId,
                paymentId,
                gatewayReference: `ch_${serial}_${index}`,
                outcome:
                  outcome < 0.65
                    ? { status: 'approved' }
                    : { status: 'declined', reason: 'insufficient_funds' },
                recordedAt: at(),
              },
            });
          }
        }
      }
      ({ events, decided: commands } = decideAll(invoiceDecider, plan));
      stream = invoiceStream(tenantId, invoiceId);
      route = '/invoices';
    } else if (roll < 0.85) {
      const orderId = asOrderId(`ord-${options.seed}-${serial}`);
      // Now and then a sku the menu does not hold (withdrawn, or never on it): the order is refused, as in the api.
      const items = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
        sku: asSku(`sku-${Math.floor(random() * (menuSkus + 2))}`),
        quantity: 1 + Math.floor(random() * 3),
      }));
      const held = random() < 0.15;
      const plan: OrderCommand[] = [
        {
          type: 'PlaceOrder',
          data: {
            tenantId,
            orderId,
            currency: 'EUR',
            items,
            menu: menuOf(tenantId),
            // A total nothing on the menu adds up to: the order is held for review.
            ...(held ? { expectedTotal: 1 } : {}),
            placedAt: at(),
          },
        },
      ];
      if (held && random() < 0.7) plan.push({ type: 'ApproveOrder', data: { orderId, approvedAt: at() } });
      if (random() < 0.85) plan.push({ type: 'ServeOrder', data: { orderId, servedAt: at() } });
      if (random() < 0.75)
        plan.push({
          type: 'CompleteOrder',
          data: { orderId, saleId: asSaleId(`sale-${options.seed}-${serial}`), completedAt: at() },
        });
      ({ events, decided: commands } = decideAll(orderDecider, plan));
      stream = orderStream(tenantId, orderId);
      route = '/orders';
    } else {
      const stockCountId = asStockCountId(`sc-${options.seed}-${serial}`);
      const plan: StockCountCommand[] = [
        { type: 'OpenStockCount', data: { tenantId, stockCountId, openedAt: at() } },
      ];
      const lines = 1 + Math.floor(random() * 6);
      for (let index = 0; index < lines; index += 1) {
        plan.push({
          type: 'RecordCountLine',
          data: {
            stockCountId,
            sku: asSku(`sku-${Math.floor(random() * 5)}`),
            countedQuantity: Math.floor(random() * 50),
            recordedAt: at(),
          },
        });
      }
      if (random() < 0.8) plan.push({ type: 'PostStockCount', data: { stockCountId, postedAt: at() } });
      ({ events, decided: commands } = decideAll(stockCountDecider, plan));
      stream = stockCountStream(tenantId, stockCountId);
      route = '/stock-counts';
    }
    active.push({
      stream,
      events: events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data })),
    });
    generated += events.length;
    if (options.withKeys) {
      for (const command of commands) {
        const keyed = keyEvents(tenantId, command, route);
        active.push(keyed);
        generated += keyed.events.length;
      }
    }
  };

  while (generated < options.events || active.length > 0) {
    while (generated < options.events && active.length < 32) addAggregate();
    if (active.length === 0) break;
    const index = Math.floor(random() * active.length);
    const next = active[index] as PendingStream;
    const take = 1 + Math.floor(random() * 3);
    yield { stream: next.stream, events: next.events.splice(0, take) };
    if (next.events.length === 0) active.splice(index, 1);
  }
}

/**
 * Appends a generated workload with `concurrency` writers; each stream's appends stay in order.
 *
 * @example
 * const count = await appendDomainWorkload(store, { seed: 1, tenantIds: ['t1'], events: 1000 });
 */
export const appendDomainWorkload = async (
  store: EventStore,
  options: DomainWorkloadOptions & { readonly concurrency?: number },
): Promise<number> => {
  const revisions = new Map<string, bigint>();
  const busy = new Map<string, Promise<void>>();
  const inFlight = new Set<Promise<void>>();
  let appended = 0;
  for (const append of generateDomainWorkload(options)) {
    if (inFlight.size >= (options.concurrency ?? 1)) await Promise.race(inFlight);
    const previous = busy.get(append.stream) ?? Promise.resolve();
    const work: Promise<void> = previous.then(async () => {
      const result = await store.appendToStream(append.stream, append.events, {
        expectedRevision: revisions.get(append.stream) ?? 'no_stream',
      });
      revisions.set(append.stream, result.nextExpectedRevision);
      appended += append.events.length;
    });
    busy.set(append.stream, work);
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
  }
  await Promise.all(inFlight);
  return appended;
};
