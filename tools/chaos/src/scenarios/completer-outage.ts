import { setTimeout as sleep } from 'node:timers/promises';
import { createIdempotentClient, createMemoryIntentStorage } from '@once/client';
import type { Intent, SubmitOutcome } from '@once/client';
import type pg from 'pg';
import { armGatewayFault } from '../faults/index.js';
import type { HistoryRecord, IntentKind, IntentRecord, IntentTarget } from '../history/index.js';
import type { SpawnedSystem } from '../spawn/index.js';
import { recordingFetch } from '../workload/index.js';

/** The completer is down for longer than key retention while card payments wait at `charge_requested`. */
export interface CompleterOutageOptions {
  /** Card payments left in flight, half with no charge at the gateway (a 5xx), half charged with the answer lost. */
  readonly payments: number;
  /** The key retention of every process (seconds); the outage lasts three times as long. */
  readonly retentionSeconds: number;
}

/**
 * The settings of every api and projector for the scenario: a short retention, and a lease and card retries short
 * enough to fit inside it (startup refuses anything else), with the scavenger and the completer looking often.
 */
export const completerOutageEnvironment = (options: CompleterOutageOptions): Record<string, string> => ({
  ONCE_KEY_RETENTION_SECONDS: String(options.retentionSeconds),
  ONCE_CARD_RETRY_ATTEMPTS: '4',
  ONCE_CARD_RETRY_BASE_MS: '200',
  ONCE_CARD_RETRY_MAX_MS: '400',
  ONCE_SCAVENGER_INTERVAL_MS: '200',
  ONCE_COMPLETER_INTERVAL_MS: '500',
});

/** The lease of the scenario's processes (ms): with the retries above, well inside a retention of 3 s or more. */
export const completerOutageLeaseMs = 1_000;

interface Abandoned {
  readonly id: string;
  readonly intent: Intent;
  readonly target: IntentTarget;
  readonly charged: boolean;
  readonly startedAt: number;
}

const answered = (outcome: SubmitOutcome) => outcome.kind !== 'gave-up';

const keysInFlight = async (pool: pg.Pool, keys: readonly string[]): Promise<number> => {
  const { rows } = await pool.query<{ count: string }>(
    `SELECT count(*) FROM idempotency_keys WHERE status = 'inFlight' AND key = ANY($1::text[])`,
    [keys],
  );
  return Number(rows[0]?.count ?? 0);
};

// Key rows whose stream expires within the hour (every key of the shortened retention, not an order's week) and is
// not removed yet. Such a stream starts to expire with its claim, and from then until the scavenger takes it whole a
// fresh fold no longer makes its row while the live key table still has it.
const shortLivedKeys = async (pool: pg.Pool): Promise<number> => {
  const { rows } = await pool.query<{ count: string }>(
    `SELECT count(*) FROM idempotency_keys k JOIN streams s ON s.stream = k.stream
      WHERE s.max_age_seconds < 3600`,
  );
  return Number(rows[0]?.count ?? 0);
};

/**
 * Plays the outage on a system spawned with `completer: false` and `completerOutageEnvironment`: card payments whose
 * gateway call fails (no charge, or a charge whose answer is lost) are left in flight by clients that give up; the
 * completer stays down for three retentions while the scavenger runs; the uncharged ones are then retried late by
 * their clients (who still hold the card token), the completer comes back and finishes the charged ones from the
 * gateway's inquiry, and their clients retry last. Every attempt and answer goes to the history, so the checker
 * proves one charge per payment and no reservation left behind.
 *
 * @example
 * await playCompleterOutage({ system, pool, apiKey, options: { payments: 6, retentionSeconds: 3 }, record, runId, log });
 */
export const playCompleterOutage = async (input: {
  readonly system: SpawnedSystem;
  readonly pool: pg.Pool;
  readonly apiKey: string;
  readonly options: CompleterOutageOptions;
  readonly record: (entry: HistoryRecord) => void;
  readonly runId: string;
  readonly log: (line: string) => void;
}): Promise<void> => {
  const { system, record, log, options } = input;
  const intentOfKey = new Map<string, string>();
  const client = createIdempotentClient({
    storage: createMemoryIntentStorage(),
    baseUrl: system.url,
    headers: () => ({ authorization: `Bearer ${input.apiKey}` }),
    retry: {
      baseDelayMs: 100,
      maxDelayMs: 1_000,
      maxRetries: 8,
      attemptTimeoutMs: 8_000,
      deadlineMs: 30_000,
    },
    fetch: recordingFetch(record, (key) => intentOfKey.get(key) ?? 'unknown'),
  });
  let created = 0;
  const finish = (
    id: string,
    kind: IntentKind,
    intent: Intent,
    target: IntentTarget,
    outcome: SubmitOutcome,
    startedAt: number,
  ) => {
    const entry: IntentRecord = {
      type: 'intent',
      intent: id,
      kind,
      key: intent.key,
      copies: 1,
      target,
      outcome: outcome.kind,
      ...(outcome.kind === 'gave-up' ? {} : { status: outcome.status }),
      ...(outcome.kind === 'succeeded' ? { body: outcome.body } : {}),
      startedAt,
      endedAt: Date.now(),
    };
    record(entry);
  };
  const create = async (request: { path: string; body: unknown }) => {
    created += 1;
    const id = `outage${String(created)}`;
    const intent = await client.createIntent({ method: 'POST', ...request });
    intentOfKey.set(intent.key, id);
    return { id, intent };
  };
  const untilAnswered = async (intent: Intent): Promise<SubmitOutcome> => {
    let outcome = await client.submit(intent);
    for (let round = 0; !answered(outcome) && round < 5; round += 1) outcome = await client.submit(intent);
    return outcome;
  };

  const abandoned: Abandoned[] = [];
  for (let index = 0; index < options.payments; index += 1) {
    const customerRef = `${input.runId}-outage-c${String(index + 1)}`;
    const invoice = await create({
      path: '/invoices',
      body: { currency: 'EUR', total: 100_000, customerRef },
    });
    const invoiceStartedAt = Date.now();
    const issued = await untilAnswered(invoice.intent);
    finish(invoice.id, 'issue-invoice', invoice.intent, { customerRef }, issued, invoiceStartedAt);
    const invoiceId =
      issued.kind === 'succeeded' ? (issued.body as { id?: unknown } | undefined)?.id : undefined;
    if (typeof invoiceId !== 'string') throw new Error(`the outage's invoice ${customerRef} was not issued`);

    // Half the charges never reach the card (a 5xx), half are charged and their answer is lost. The fault waits for
    // this invoice's charge: a run of the workload that outlived its lease may still reach the gateway meanwhile.
    const charged = index % 2 === 1;
    const fault = charged ? { kind: 'lost-response' } : { kind: 'error', status: 503 };
    if (!(await armGatewayFault(system.gatewayUrl, fault, 1, { invoiceId })))
      throw new Error('the gateway took no fault');
    record({
      type: 'fault',
      at: Date.now(),
      fault: charged ? 'gateway-lost-response' : 'gateway-error',
      target: 'gateway charges',
    });
    const amount = 1_000 + index;
    const payment = await create({
      path: `/invoices/${invoiceId}/payments`,
      body: { method: 'card', amount, currency: 'EUR', cardToken: 'tok_visa' },
    });
    const startedAt = Date.now();
    // The client gives up after its first attempt: the key stays in flight at charge_requested.
    const first = await client.submit(payment.intent, { retry: { maxRetries: 0 } });
    if (answered(first)) {
      // A charge whose answer was lost can still be answered at once: the gateway's webhook may record it before the
      // request records its unknown reply, and the payment then stands charged. Right, but nothing left in flight.
      log(`the card payment ${payment.id} was answered at once (${first.kind}); it is not left in flight`);
      finish(payment.id, 'pay-card', payment.intent, { invoiceId, amount }, first, startedAt);
      continue;
    }
    abandoned.push({
      id: payment.id,
      intent: payment.intent,
      target: { invoiceId, amount },
      charged,
      startedAt,
    });
  }
  if (abandoned.length === 0) throw new Error('no card payment of the outage was left in flight');
  const keys = abandoned.map((each) => each.intent.key);
  record({ type: 'fault', at: Date.now(), fault: 'completer-down', target: 'completer' });
  log(
    `${String(abandoned.length)} card payments left in flight; the completer stays down for three retentions`,
  );
  await sleep(options.retentionSeconds * 3_000);
  const stillInFlight = await keysInFlight(input.pool, keys);
  log(`after the outage the key table shows ${String(stillInFlight)} of them in flight`);

  const clientsComeBack = async (payments: readonly Abandoned[]): Promise<void> => {
    for (const payment of payments)
      finish(
        payment.id,
        'pay-card',
        payment.intent,
        payment.target,
        await untilAnswered(payment.intent),
        payment.startedAt,
      );
  };

  // The clients of the uncharged payments come back late, with their keys and card tokens.
  await clientsComeBack(abandoned.filter((each) => !each.charged));

  // The completer comes back and finishes the charged ones from the gateway's inquiry, without a client.
  await system.startCompleter();
  record({ type: 'fault', at: Date.now(), fault: 'completer-back', target: 'completer' });
  const charged = abandoned.filter((each) => each.charged);
  const deadline = Date.now() + 60_000;
  while (
    (await keysInFlight(
      input.pool,
      charged.map((each) => each.intent.key),
    )) > 0 &&
    Date.now() < deadline
  )
    await sleep(250);
  log('the completer is back; the clients of the charged payments retry last');
  await clientsComeBack(charged);

  // With retention this short, let every key expire and go whole before the key table is compared with a fresh fold.
  log('waiting for every short-lived key to expire and be removed');
  const settled = Date.now() + 120_000;
  while ((await shortLivedKeys(input.pool)) > 0 && Date.now() < settled) await sleep(250);
};
