import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createPostgresEventStore } from '@once/event-store/postgres';
import type { EventStore, StreamAppend } from '@once/event-store';
import { startWebhookRelay } from '@once/outbox';
import { registerEndpointInLog, startWebhookReceiver } from '@once/outbox/testing';
import type { WebhookReceiver } from '@once/outbox/testing';
import { startEmbeddedPostgres } from '@once/postgres';
import {
  createSecretsKeyring,
  generateSecretsKey,
  generateWebhookSecret,
  parseSecretsKeys,
  webhookHeaders,
} from '@once/webhooks';

/*
 * The outbox end to end: events appended to the PostgreSQL log, read by the webhook relay, delivered signed to a
 * local Standard Webhooks receiver (it verifies every signature). Beside it, the ceiling measured in the same run:
 * the same receiver hit directly by a plain HTTP client (fetch, the same signed bodies) at the same concurrency as
 * the relay's per-endpoint limit.
 * - throughput: `--events` (6,000) events appended while the relay is stopped, then the time for the relay to deliver them all;
 * - latency: events appended at a steady half of the ceiling's rate for `--seconds` (10), append → receiver, p50/p99.
 */

const CONCURRENCY = 16;
const TICK_MS = 10;

/** What `npm run bench -- outbox` writes to tools/bench/results/outbox.json. */
export interface OutboxBenchResult {
  readonly delivered_per_s: number;
  readonly ceiling_per_s: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly delivered_vs_ceiling: number;
  readonly latency_rate_per_s: number;
  readonly concurrency: number;
  readonly events: number;
  readonly postgres: string;
  readonly measured_at: string;
}

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const percentile = (values: readonly number[], fraction: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
};

/** A webhook body shaped like the relay's, carrying the instant it was appended (or sent). */
const body = (tenantId: string, orderId: string) =>
  JSON.stringify({
    type: 'OrderPlaced',
    timestamp: new Date().toISOString(),
    stream: `order-${tenantId}-${orderId}`,
    data: { tenantId, orderId, sentAt: Date.now() },
  });

/** The plain client: CONCURRENCY callers post signed bodies straight to the receiver until `count` are answered. */
const measureCeiling = async (receiver: WebhookReceiver, secret: string, count: number): Promise<number> => {
  let next = 0;
  const started = performance.now();
  const caller = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      const id = randomUUID();
      const payload = body('ceiling', randomUUID());
      const response = await fetch(receiver.url, {
        method: 'POST',
        body: payload,
        headers: {
          'content-type': 'application/json',
          ...webhookHeaders([secret], { id, timestamp: Math.floor(Date.now() / 1000), body: payload }),
        },
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`the receiver answered ${String(response.status)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, caller));
  return count / ((performance.now() - started) / 1000);
};

/** Appends `count` OrderPlaced events, each on its own stream, in multi-stream appends of up to `perAppend`. */
const appendOrders = async (
  store: EventStore,
  tenantId: string,
  count: number,
  perAppend = 200,
): Promise<void> => {
  for (let done = 0; done < count; done += perAppend) {
    const appends: StreamAppend[] = Array.from({ length: Math.min(perAppend, count - done) }, () => {
      const orderId = randomUUID();
      return {
        stream: `order-${tenantId}-${orderId}`,
        expectedRevision: 'no_stream',
        events: [{ id: randomUUID(), type: 'OrderPlaced', data: { tenantId, orderId, sentAt: Date.now() } }],
      };
    });
    await store.appendMulti(appends);
  }
};

const secrets = createSecretsKeyring(parseSecretsKeys(generateSecretsKey()));

const registerEndpoint = (store: EventStore, tenantId: string, url: string, secret: string) =>
  registerEndpointInLog(store, secrets, { tenantId, url, secret, eventTypes: ['OrderPlaced'] });

const until = async (
  condition: () => boolean,
  what: string,
  progress: () => Promise<string>,
  timeoutMs = 120_000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${await progress()}`);
    await sleep(2);
  }
};

const numberArg = (args: readonly string[], name: string, fallback: number): number => {
  const index = args.indexOf(`--${name}`);
  const parsed = index >= 0 ? Number(args[index + 1]) : Number.NaN;
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
};

/** Measures and writes tools/bench/results/outbox.json. */
export const measureOutbox = async (events: number, latencySeconds: number): Promise<OutboxBenchResult> => {
  const server = await startEmbeddedPostgres({});
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 30 });
  const store = createPostgresEventStore(pool);
  const secret = generateWebhookSecret();
  const latencies: number[] = [];
  let measuring = false;
  let delivered = 0;
  const receiver = await startWebhookReceiver({
    secrets: () => [secret],
    onApplied: (_id, text) => {
      delivered += 1;
      if (!measuring) return;
      const { data } = JSON.parse(text) as { data: { sentAt: number } };
      latencies.push(Date.now() - data.sentAt);
    },
  });
  const relayOptions = {
    pool,
    store,
    secrets,
    urlPolicy: { allowHttp: true },
    maxInFlightPerEndpoint: CONCURRENCY,
    pollIntervalMs: 20,
    logger: {
      info: () => undefined,
      warn: (details: object, message: string) => log(`relay: ${message} ${JSON.stringify(details)}`),
      error: (details: object, message: string) => log(`relay: ${message} ${JSON.stringify(details)}`),
    },
  };
  const progress = async (): Promise<string> =>
    JSON.stringify(
      (await pool.query('SELECT status, count(*)::int AS count FROM webhook_messages GROUP BY status')).rows,
    );
  try {
    const version = await pool.query<{ server_version: string }>('SHOW server_version');
    log(
      `outbox bench: ${String(events)} events, concurrency ${String(CONCURRENCY)}, PostgreSQL ${version.rows[0]?.server_version ?? '?'}`,
    );
    await measureCeiling(receiver, secret, 500);
    const ceiling = await measureCeiling(receiver, secret, events);
    delivered = 0;
    log(`ceiling (plain client → receiver): ${ceiling.toFixed(0)}/s`);

    // Throughput: the log holds events undelivered events; the relay starts and delivers them all.
    const warmTenant = randomUUID();
    await registerEndpoint(store, warmTenant, receiver.url, secret);
    const tenantId = randomUUID();
    await registerEndpoint(store, tenantId, receiver.url, secret);
    await appendOrders(store, warmTenant, 200);
    let relay = await startWebhookRelay(relayOptions);
    await until(() => delivered >= 200, 'the warm-up deliveries', progress);
    await relay.stop();
    delivered = 0;
    await appendOrders(store, tenantId, events);
    const started = performance.now();
    relay = await startWebhookRelay(relayOptions);
    await until(() => delivered >= events, 'every delivery', progress);
    const deliveredPerSecond = events / ((performance.now() - started) / 1000);
    log(
      `relay: ${deliveredPerSecond.toFixed(0)} deliveries/s (${(deliveredPerSecond / ceiling).toFixed(2)} × ceiling)`,
    );

    // Latency: a steady half of the ceiling's rate, appended in ticks of TICK_MS.
    const rate = ceiling / 2;
    const perTick = Math.max(1, Math.round((rate * TICK_MS) / 1000));
    measuring = true;
    delivered = 0;
    const ticks = Math.round((latencySeconds * 1000) / TICK_MS);
    const firstTick = performance.now();
    let appended = 0;
    for (let tick = 0; tick < ticks; tick++) {
      const due = firstTick + tick * TICK_MS;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      await appendOrders(store, tenantId, perTick, perTick);
      appended += perTick;
    }
    const appendRate = appended / ((performance.now() - firstTick) / 1000);
    await until(() => delivered >= appended, 'the latency run’s deliveries', progress);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    log(`latency at ${appendRate.toFixed(0)}/s appended: p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`);
    await relay.stop();

    const result: OutboxBenchResult = {
      delivered_per_s: Math.round(deliveredPerSecond),
      ceiling_per_s: Math.round(ceiling),
      p50_ms: Math.round(p50),
      p99_ms: Math.round(p99),
      delivered_vs_ceiling: Number((deliveredPerSecond / ceiling).toFixed(2)),
      latency_rate_per_s: Math.round(appendRate),
      concurrency: CONCURRENCY,
      events: events,
      postgres: `embedded ${version.rows[0]?.server_version ?? 'unknown'}, fsync on`,
      measured_at: new Date().toISOString(),
    };
    const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'outbox.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
    return result;
  } finally {
    await receiver.close();
    await store.close();
    await pool.end();
    await server.stop();
  }
};

/** The `npm run bench -- outbox [--events N] [--seconds S]` entry. */
export const run = async (args: readonly string[]): Promise<void> => {
  await measureOutbox(numberArg(args, 'events', 6_000), numberArg(args, 'seconds', 10));
};
