import { createIdempotentClient, createMemoryIntentStorage } from '@once/client';
import type { Intent, IntentRequest, SubmitOutcome } from '@once/client';
import type { HistoryRecord, IntentKind, IntentRecord, IntentTarget } from '../history/index.js';
import { randomInt } from '../random/index.js';
import type { Random } from '../random/index.js';
import { recordingFetch } from './recording-fetch.js';

export interface WorkloadOptions {
  /** Where the clients send (the fault proxy). */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** How many intents to create in all. */
  readonly intents: number;
  /** Clients working at once. */
  readonly concurrency: number;
  /** Share of intents sent as 10 concurrent copies of one request with one key. */
  readonly duplicateRate: number;
  /** Share of payments made by card (through the gateway). */
  readonly cardRate: number;
  readonly attemptTimeoutMs: number;
  readonly random: Random;
  readonly record: (entry: HistoryRecord) => void;
  /** A tag unique to the run, in customer references and skus, so effects are matched to this run's intents. */
  readonly runId: string;
}

/** What the workload did: intents still without a definitive answer wait for `drain`. */
export interface Workload {
  /** Runs until every intent was created and tried. */
  run(): Promise<void>;
  /** Sends every intent still without a definitive answer again, with its key, until it has one (or `rounds` pass). */
  drain(rounds: number): Promise<void>;
  /** Intents created so far. */
  created(): number;
}

const duplicateCopies = 10;

interface Pending {
  readonly id: string;
  readonly kind: IntentKind;
  readonly intent: Intent;
  readonly target: IntentTarget;
  readonly copies: number;
  readonly startedAt: number;
}

const rank: Record<SubmitOutcome['kind'], number> = { succeeded: 2, rejected: 1, 'gave-up': 0 };

const bestOf = (outcomes: readonly SubmitOutcome[]): SubmitOutcome =>
  [...outcomes].sort((a, b) => rank[b.kind] - rank[a.kind])[0] as SubmitOutcome;

const idOf = (outcome: SubmitOutcome): string | undefined => {
  if (outcome.kind !== 'succeeded' || typeof outcome.body !== 'object' || outcome.body === null)
    return undefined;
  const id = (outcome.body as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
};

/**
 * Many clients on `@once/client`, one key per intent: invoices paid in cash and by card, menu items set and
 * withdrawn, orders placed, served and completed, stock counts opened, counted and posted, and now and then an intent sent as 10 copies at once.
 * Every attempt and every intent's final answer go to the history.
 *
 * @example
 * const workload = createWorkload({ baseUrl: proxy.url, apiKey, intents: 300, concurrency: 16, ... });
 * await workload.run();
 * await workload.drain(20);
 */
export const createWorkload = (options: WorkloadOptions): Workload => {
  const { random, record, runId } = options;
  const intentOfKey = new Map<string, string>();
  const client = createIdempotentClient({
    storage: createMemoryIntentStorage(),
    baseUrl: options.baseUrl,
    headers: () => ({ authorization: `Bearer ${options.apiKey}` }),
    retry: {
      baseDelayMs: 100,
      maxDelayMs: 2_000,
      maxRetries: 8,
      attemptTimeoutMs: options.attemptTimeoutMs,
      deadlineMs: options.attemptTimeoutMs * 6,
    },
    fetch: recordingFetch(record, (key) => intentOfKey.get(key) ?? 'unknown'),
  });
  let created = 0;
  const unanswered: Pending[] = [];

  const finish = (pending: Pending, outcome: SubmitOutcome): void => {
    const entry: IntentRecord = {
      type: 'intent',
      intent: pending.id,
      kind: pending.kind,
      key: pending.intent.key,
      copies: pending.copies,
      target: pending.target,
      outcome: outcome.kind,
      ...(outcome.kind === 'gave-up' ? {} : { status: outcome.status }),
      ...(outcome.kind === 'succeeded' ? { body: outcome.body } : {}),
      startedAt: pending.startedAt,
      endedAt: Date.now(),
    };
    record(entry);
  };

  /** Creates and sends one intent; undefined when the budget is spent or no definitive answer came (yet). */
  const send = async (
    kind: IntentKind,
    request: IntentRequest,
    target: IntentTarget,
  ): Promise<SubmitOutcome | undefined> => {
    if (created >= options.intents) return undefined;
    created += 1;
    const id = `i${String(created)}`;
    const intent = await client.createIntent(request);
    intentOfKey.set(intent.key, id);
    const copies = random() < options.duplicateRate ? duplicateCopies : 1;
    const pending: Pending = { id, kind, intent, target, copies, startedAt: Date.now() };
    let outcome = bestOf(await Promise.all(Array.from({ length: copies }, () => client.submit(intent))));
    for (let round = 0; outcome.kind === 'gave-up' && round < 2; round += 1)
      outcome = await client.submit(intent);
    if (outcome.kind === 'gave-up') {
      unanswered.push(pending);
      return undefined;
    }
    finish(pending, outcome);
    return outcome;
  };

  const post = (path: string, body: unknown): IntentRequest => ({ method: 'POST', path, body });

  const invoiceFlow = async (): Promise<void> => {
    const customerRef = `${runId}-c${String(created + 1)}`;
    const issued = await send(
      'issue-invoice',
      post('/invoices', { currency: 'EUR', total: 100_000, customerRef }),
      {
        customerRef,
      },
    );
    const invoiceId = issued && idOf(issued);
    if (invoiceId === undefined) return;
    const payments = randomInt(random, 1, 3);
    for (let index = 0; index < payments; index += 1) {
      // Disjoint ranges keep every amount unique within its invoice: the checker matches payments by it.
      const amount = (index + 1) * 1_000 + randomInt(random, 0, 99);
      const card = random() < options.cardRate;
      const body = card
        ? { method: 'card', amount, currency: 'EUR', cardToken: random() < 0.1 ? 'tok_declined' : 'tok_visa' }
        : { method: 'cash', amount, currency: 'EUR' };
      await send(card ? 'pay-card' : 'pay-cash', post(`/invoices/${invoiceId}/payments`, body), {
        invoiceId,
        amount,
      });
    }
  };

  // Each order is for an item of its own, put on the menu first (the server prices orders from it, never from
  // the client) and withdrawn once the order has its answer, so the menu stays small however long the run.
  const orderFlow = async (): Promise<void> => {
    const sku = `${runId}-o${String(created + 1)}`;
    const item = { name: `Chaos ${sku}`, unitPrice: 350, currency: 'EUR' };
    const listed = await send(
      'set-menu-item',
      { method: 'PUT', path: `/menu/items/${sku}`, body: item },
      { sku },
    );
    if (listed?.kind !== 'succeeded') return;
    const quantity = randomInt(random, 1, 3);
    const placed = await send(
      'place-order',
      post('/orders', { currency: 'EUR', lines: [{ sku, quantity }], expectedTotal: quantity * 350 }),
      { sku },
    );
    if (placed !== undefined)
      await send('withdraw-menu-item', { method: 'DELETE', path: `/menu/items/${sku}` }, { sku });
    const orderId = placed && idOf(placed);
    if (orderId === undefined) return;
    const served = await send('serve-order', post(`/orders/${orderId}/serve`, {}), { orderId });
    if (served?.kind !== 'succeeded') return;
    await send('complete-order', post(`/orders/${orderId}/complete`, {}), { orderId });
  };

  const stockCountFlow = async (): Promise<void> => {
    const opened = await send('open-stock-count', post('/stock-counts', {}), {});
    const stockCountId = opened && idOf(opened);
    if (stockCountId === undefined) return;
    for (const sku of ['beans', 'milk']) {
      const line = post(`/stock-counts/${stockCountId}/lines`, {
        sku,
        countedQuantity: randomInt(random, 0, 50),
      });
      if ((await send('record-count-line', line, { stockCountId, sku }))?.kind !== 'succeeded') return;
    }
    await send('post-stock-count', post(`/stock-counts/${stockCountId}/post`, {}), { stockCountId });
  };

  const worker = async (): Promise<void> => {
    while (created < options.intents) {
      const roll = random();
      await (roll < 0.5 ? invoiceFlow() : roll < 0.85 ? orderFlow() : stockCountFlow());
    }
  };

  return {
    created: () => created,
    run: async () => {
      await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
    },
    drain: async (rounds) => {
      const waiting = unanswered.splice(0);
      await Promise.all(
        waiting.map(async (pending) => {
          let outcome = await client.submit(pending.intent);
          for (let round = 1; outcome.kind === 'gave-up' && round < rounds; round += 1) {
            outcome = await client.submit(pending.intent);
          }
          finish(pending, outcome);
        }),
      );
    },
  };
};
