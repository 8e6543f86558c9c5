import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startWebhookReceiver } from '@once/outbox/testing';
import type { WebhookReceiver } from '@once/outbox/testing';
import { startEmbeddedPostgres } from '@once/postgres';
import { createOnceApiKey, repositoryRoot, startOnceApi, stopProcess } from './processes/bench-processes.js';
import type { BenchService } from './processes/bench-processes.js';
import { percentile, soakRatios } from './soak-ratios.js';
import type { SoakSample } from './soak-ratios.js';

const problemType = (body: string): string => {
  try {
    const type = (JSON.parse(body) as { type?: unknown }).type;
    return typeof type === 'string' ? (type.split('/').at(-1) ?? type) : 'no-problem-type';
  } catch {
    return 'no-problem-type';
  }
};

/** What `npm run bench -- soak` writes to tools/bench/results/soak.json. */
export interface SoakResult {
  readonly requests: number;
  /**
   * Growth of what Once keeps only for a while (key logs, key table rows, webhook messages and attempts) over the last
   * third of the run ÷ growth over the first third.
   */
  readonly storage_growth_ratio: number;
  /** The same for the whole log (events + stream rows), with the business events it keeps for ever. */
  readonly log_growth_ratio: number;
  /** The same for the key logs alone (streams named `idem-…`). */
  readonly key_storage_growth_ratio: number;
  /** The same for the webhook delivery state (messages + attempts), pruned after `webhook_retention_seconds`. */
  readonly webhook_storage_growth_ratio: number;
  readonly webhook_retention_seconds: number;
  /** Deliveries the soak's webhook receiver got (every payment's `PaymentRecorded`). */
  readonly webhooks_received: number;
  /** Keyed p99 of the last tenth of the requests ÷ the first tenth. */
  readonly p99_ratio: number;
  readonly samples: readonly SoakSample[];
  readonly mix: Readonly<Record<string, number>>;
  readonly answers: Readonly<Record<string, number>>;
  readonly server_errors: number;
  readonly key_retention_seconds: number;
  readonly concurrency: number;
  /** The schedule the requests left on (per second; 0: as fast as answered) and the rate reached. */
  readonly rate: number;
  readonly achieved_rate: number;
  readonly seconds: number;
  readonly load_average_at_start: readonly number[];
  readonly postgres: string;
  readonly measured_at: string;
}

/**
 * Keyed requests of several kinds, as a café's tills send them for months. Only `payment` changes the café's data
 * (one event on an invoice, forever); the others are answered from, or stored only in, key logs that expire.
 */
const mix = {
  /** A new 1-cent cash payment: the key log and one invoice event. */
  payment: 0.02,
  /** A payment above the invoice's balance: a business-rule problem, stored with its key. */
  'over-balance': 0.24,
  /** A payment in another currency: a business-rule problem, stored with its key. */
  'wrong-currency': 0.12,
  /** Serving an order that does not exist: a business-rule problem of another command, stored with its key. */
  'unknown-order': 0.12,
  /** A retry of a recent request with its key: the stored answer, nothing new stored. */
  replay: 0.4,
  /** A recent key with another body: 422 idempotency-key-reused, nothing stored. */
  'key-reused': 0.1,
} as const;
type Kind = keyof typeof mix;

interface Sent {
  readonly path: string;
  readonly body: string;
  readonly key: string;
}

const INVOICES = 64;

const pick = (): Kind => {
  let roll = Math.random();
  for (const [kind, share] of Object.entries(mix) as [Kind, number][]) {
    roll -= share;
    if (roll < 0) return kind;
  }
  return 'replay';
};

/**
 * The soak: at least 500,000 keyed requests (`--requests`) of mixed kinds against the api on embedded PostgreSQL
 * with a short key retention (`--retention`, 60 s) and the scavenger on, every payment delivered to a webhook receiver
 * and pruned by the relay after a short retention (`--webhook-retention`, 60 s), sampling the log's size and the keyed
 * latencies every `--sample-seconds`. The requests leave at `--rate` per second (600) from at most `--concurrency`
 * connections. Storage should level off (ratio ≪ 1) and latency stay flat (ratio ≈ 1).
 * `--minutes` ends a run early (the requests done so far count).
 */
export const run = async (args: readonly string[]): Promise<void> => {
  const { values } = parseArgs({
    args: [...args],
    options: {
      requests: { type: 'string', default: '500000' },
      concurrency: { type: 'string', default: '16' },
      rate: { type: 'string', default: '600' },
      retention: { type: 'string', default: '60' },
      'webhook-retention': { type: 'string', default: '60' },
      'sample-seconds': { type: 'string', default: '5' },
      'scavenge-ms': { type: 'string', default: '5000' },
      minutes: { type: 'string', default: '0' },
    },
  });
  const total = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const rate = Number(values.rate);
  const retention = Number(values.retention);
  const webhookRetention = Number(values['webhook-retention']);
  const sampleMs = Number(values['sample-seconds']) * 1000;
  const stopAt = Number(values.minutes) > 0 ? Date.now() + Number(values.minutes) * 60_000 : Infinity;
  const loadAtStart = loadavg().map((load) => Math.round(load * 100) / 100);

  const server = await startEmbeddedPostgres();
  const db = new pg.Pool({ connectionString: server.connectionString, max: 2 });
  let api: BenchService | undefined;
  let receiver: WebhookReceiver | undefined;
  try {
    api = await startOnceApi({
      databaseUrl: server.connectionString,
      environment: {
        ONCE_KEY_RETENTION_SECONDS: String(retention),
        ONCE_SCAVENGER_INTERVAL_MS: String(values['scavenge-ms']),
        // A retention this short is refused unless the lease and the card retries fit inside it.
        ONCE_LEASE_MS: '5000',
        ONCE_CARD_RETRY_ATTEMPTS: '3',
        ONCE_CARD_RETRY_BASE_MS: '1000',
        ONCE_CARD_RETRY_MAX_MS: '5000',
        ONCE_WEBHOOK_RETENTION_DAYS: String(webhookRetention / 86_400),
        ONCE_WEBHOOK_ALLOW_HTTP: '1',
      },
    });
    const { url } = api;
    // The tills' staff key sends the requests; the café's admin key (same tenant) registers the webhook endpoint.
    const tenantId = randomUUID();
    const apiKey = await createOnceApiKey(server.connectionString, { tenantId });
    const adminKey = await createOnceApiKey(server.connectionString, { tenantId, role: 'admin' });
    const post = (path: string, key: string, body: string, bearer = apiKey) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body,
      });
    // Every payment is delivered to a webhook receiver, and the relay prunes what it delivered after the retention.
    const secrets: string[] = [];
    receiver = await startWebhookReceiver({ secrets: () => secrets });
    const endpoint = await post(
      '/webhook-endpoints',
      randomUUID(),
      JSON.stringify({ url: receiver.url, eventTypes: ['PaymentRecorded'] }),
      adminKey,
    );
    if (endpoint.status !== 201)
      throw new Error(
        `registering the webhook endpoint answered ${String(endpoint.status)}: ${await endpoint.text()}`,
      );
    secrets.push(((await endpoint.json()) as { secret: string }).secret);
    const invoices: string[] = [];
    for (let index = 0; index < INVOICES; index++) {
      const issued = await post('/invoices', randomUUID(), JSON.stringify({ currency: 'EUR', total: 1e12 }));
      invoices.push(((await issued.json()) as { id: string }).id);
    }
    const invoice = () => invoices[Math.floor(Math.random() * invoices.length)] as string;

    const started = Date.now();
    const latencies = new Float64Array(total);
    const answers: Record<string, number> = {};
    const recent: Sent[] = [];
    let next = 0;
    let done = 0;
    let serverErrors = 0;
    let window: number[] = [];

    const request = (kind: Kind): Sent => {
      const earlier = recent[Math.floor(Math.random() * recent.length)];
      switch (kind) {
        case 'replay':
          if (earlier) return earlier;
          break;
        case 'key-reused':
          if (earlier)
            return { ...earlier, body: JSON.stringify({ method: 'cash', amount: 7, currency: 'EUR' }) };
          break;
        case 'over-balance':
          return {
            path: `/invoices/${invoice()}/payments`,
            key: randomUUID(),
            body: JSON.stringify({ method: 'cash', amount: 2e12, currency: 'EUR' }),
          };
        case 'wrong-currency':
          return {
            path: `/invoices/${invoice()}/payments`,
            key: randomUUID(),
            body: JSON.stringify({ method: 'cash', amount: 1, currency: 'USD' }),
          };
        case 'unknown-order':
          return { path: `/orders/${randomUUID()}/serve`, key: randomUUID(), body: '{}' };
        case 'payment':
          break;
      }
      return {
        path: `/invoices/${invoice()}/payments`,
        key: randomUUID(),
        body: JSON.stringify({ method: 'cash', amount: 1, currency: 'EUR' }),
      };
    };

    // Requests leave on a fixed schedule (`rate` per second), so the key logs' steady size does not follow the
    // machine's momentary speed; with `--rate 0` the workers send as fast as they are answered.
    const dueAt = (index: number): number => (rate > 0 ? started + (index * 1000) / rate : 0);
    const worker = async (): Promise<void> => {
      while (next < total && Date.now() < stopAt) {
        const index = next++;
        const wait = dueAt(index) - Date.now();
        if (wait > 0) await setTimeout(wait);
        const kind = pick();
        const sent = request(kind);
        const sentAt = performance.now();
        const response = await post(sent.path, sent.key, sent.body).catch(() => undefined);
        const text = (await response?.text()) ?? '';
        const elapsed = performance.now() - sentAt;
        latencies[index] = elapsed;
        window.push(elapsed);
        done++;
        const status = response?.status ?? 0;
        // A server error is counted under its problem type, so a run says what failed.
        const answer = `${kind} ${String(status)}${status >= 500 ? ` ${problemType(text)}` : ''}`;
        answers[answer] = (answers[answer] ?? 0) + 1;
        if (status >= 500 || status === 0) serverErrors++;
        if (kind !== 'replay' && kind !== 'key-reused' && status > 0 && status < 500) {
          recent.push(sent);
          if (recent.length > 2_000) recent.splice(0, 1_000);
        }
      }
    };

    const samples: SoakSample[] = [];
    const sample = async (): Promise<void> => {
      const { rows } = await db.query<{
        events: string;
        streams: string;
        key_events: string;
        key_streams: string;
        key_rows: string;
        webhook_rows: string;
        bytes: string;
      }>(
        `SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM streams) AS streams,
                (SELECT count(*) FROM events WHERE stream LIKE 'idem-%') AS key_events,
                (SELECT count(*) FROM streams WHERE stream LIKE 'idem-%') AS key_streams,
                (SELECT count(*) FROM idempotency_keys) AS key_rows,
                (SELECT count(*) FROM webhook_messages) + (SELECT count(*) FROM webhook_attempts) AS webhook_rows,
                pg_database_size(current_database()) AS bytes`,
      );
      const row = rows[0];
      const taken = window;
      window = [];
      samples.push({
        seconds: Math.round((Date.now() - started) / 100) / 10,
        requests: done,
        events: Number(row?.events),
        streams: Number(row?.streams),
        key_events: Number(row?.key_events),
        key_streams: Number(row?.key_streams),
        key_rows: Number(row?.key_rows),
        webhook_rows: Number(row?.webhook_rows),
        database_bytes: Number(row?.bytes),
        keyed_p50_ms: percentile(taken, 0.5),
        keyed_p99_ms: percentile(taken, 0.99),
      });
      const last = samples.at(-1) as SoakSample;
      console.log(
        `${String(last.seconds).padStart(7)} s ${String(last.requests).padStart(8)} requests  events ${String(last.events).padStart(8)}  streams ${String(last.streams).padStart(8)}  webhook rows ${String(last.webhook_rows).padStart(6)}  db ${(last.database_bytes / 2 ** 20).toFixed(1).padStart(7)} MiB  p50 ${last.keyed_p50_ms.toFixed(1)} ms  p99 ${last.keyed_p99_ms.toFixed(1)} ms`,
      );
    };
    await sample();
    const sampler = setInterval(
      () => void sample().catch((error: unknown) => console.error('sample failed', error)),
      sampleMs,
    );
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
    clearInterval(sampler);
    await sample();

    const ratios = soakRatios(samples, latencies.subarray(0, done));
    const result: SoakResult = {
      requests: done,
      ...ratios,
      samples,
      mix,
      answers,
      server_errors: serverErrors,
      key_retention_seconds: retention,
      webhook_retention_seconds: webhookRetention,
      webhooks_received: receiver.requests.length,
      concurrency,
      rate,
      achieved_rate: Math.round(done / ((Date.now() - started) / 1000)),
      seconds: Math.round((Date.now() - started) / 1000),
      load_average_at_start: loadAtStart,
      postgres: (await db.query<{ version: string }>('SHOW server_version')).rows[0]?.version ?? 'unknown',
      measured_at: new Date().toISOString(),
    };
    const file = join(repositoryRoot, 'tools', 'bench', 'results', 'soak.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    console.table({
      requests: done,
      storage_growth_ratio: result.storage_growth_ratio,
      log_growth_ratio: result.log_growth_ratio,
      key_storage_growth_ratio: result.key_storage_growth_ratio,
      webhook_storage_growth_ratio: result.webhook_storage_growth_ratio,
      p99_ratio: result.p99_ratio,
      server_errors: serverErrors,
      achieved_rate: result.achieved_rate,
      seconds: result.seconds,
    });
    console.log(`wrote ${file}`);
  } finally {
    if (api) await stopProcess(api.child);
    await receiver?.close();
    await db.end();
    await server.stop();
  }
};
