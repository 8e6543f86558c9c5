import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import { startEmbeddedPostgres } from '@once/postgres';
import { createApiKey, root, startApi, stopApi } from '../api-child.js';
import type { ApiChild } from '../api-child.js';

/** What `npm run bench -- http` writes to tools/bench/results/http.json. */
export interface HttpBenchResult {
  readonly keyed_rps: number;
  readonly plain_rps: number;
  readonly replay_rps: number;
  readonly keyed_p50_ms: number;
  readonly keyed_p99_ms: number;
  readonly plain_p50_ms: number;
  readonly plain_p99_ms: number;
  readonly replay_p50_ms: number;
  readonly replay_p99_ms: number;
  readonly keyed_vs_plain: number;
  readonly replay_vs_keyed: number;
  /** Answers other than 201 per phase (conflicts that outlasted the retries, 503s); 0 in a clean run. */
  readonly non_2xx: { readonly keyed: number; readonly plain: number; readonly replay: number };
  readonly connections: number;
  readonly seconds_per_phase: number;
  readonly rounds: number;
  readonly invoices: number;
  readonly postgres: string;
  readonly measured_at: string;
}

const CONNECTIONS = 16;
const SECONDS_PER_PHASE = 5;
const ROUNDS = 3;
/**
 * Payments spread over this many invoices, so 16 connections rarely race on one stream, and every invoice stream
 * (read whole by each payment) stays short enough that the phases run late see nearly the streams the early ones
 * saw: with 256 invoices they grew by about 20 events a round and each later phase was measured on longer reads.
 */
const INVOICES = 1024;

const post = async (url: string, apiKey: string, key: string, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify(body),
  });
  if (response.status !== 201)
    throw new Error(`${url} answered ${String(response.status)}: ${await response.text()}`);
  return (await response.json()) as { id: string };
};

interface PhaseResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
}

const payment = JSON.stringify({ method: 'cash', amount: 1, currency: 'EUR' });

/** 16 connections for `seconds`: each request a cash payment on a random invoice, with a fresh key or a fixed one. */
const phase = async (
  api: ApiChild,
  apiKey: string,
  invoiceIds: readonly string[],
  fixed?: { key: string; invoiceId: string },
) => {
  const result = await autocannon({
    url: api.url,
    connections: CONNECTIONS,
    duration: SECONDS_PER_PHASE,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => ({
          ...request,
          path: `/invoices/${fixed?.invoiceId ?? (invoiceIds[Math.floor(Math.random() * invoiceIds.length)] as string)}/payments`,
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': fixed?.key ?? randomUUID(),
          },
          body: payment,
        }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  } satisfies PhaseResult;
};

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * The api over HTTP with autocannon (16 connections) on embedded PostgreSQL with fsync on: `POST
 * /invoices/:id/payments` with fresh keys, the same route without the idempotency layer (`plain-api.ts`: the same
 * app with the plain engine, a second process on the same database), and replays of one key. Phases alternate round after round and the
 * medians count.
 */
export const runHttpBench = async (
  log: (line: string) => void = () => undefined,
): Promise<HttpBenchResult> => {
  const server = await startEmbeddedPostgres();
  const common = { DATABASE_URL: server.connectionString, GATEWAY_URL: 'http://127.0.0.1:9' };
  const apis: ApiChild[] = [];
  try {
    const keyedApi = await startApi(common);
    apis.push(keyedApi);
    const plainApi = await startApi(common, 'tools/bench/src/http/plain-api.ts');
    apis.push(plainApi);
    const apiKey = await createApiKey(server.connectionString);
    const invoiceIds: string[] = [];
    while (invoiceIds.length < INVOICES) {
      const batch = await Promise.all(
        Array.from({ length: 16 }, () =>
          post(`${keyedApi.url}/invoices`, apiKey, randomUUID(), { currency: 'EUR', total: 1e12 }),
        ),
      );
      invoiceIds.push(...batch.map((invoice) => invoice.id));
    }
    const replayKey = randomUUID();
    const replayInvoice = invoiceIds[0] as string;
    await post(`${keyedApi.url}/invoices/${replayInvoice}/payments`, apiKey, replayKey, JSON.parse(payment));

    await phase(keyedApi, apiKey, invoiceIds);
    await phase(plainApi, apiKey, invoiceIds);
    const keyed: PhaseResult[] = [];
    const plain: PhaseResult[] = [];
    const replay: PhaseResult[] = [];
    const sides = [
      { name: 'plain', api: plainApi, results: plain },
      { name: 'keyed', api: keyedApi, results: keyed },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      // Plain first in even rounds, keyed first in odd ones: neither side always runs on the longer streams.
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const result = await phase(side.api, apiKey, invoiceIds);
        side.results.push(result);
        log(`round ${round + 1}: ${side.name} ${result.rps.toFixed(0)}/s p99 ${result.p99} ms`);
      }
      replay.push(await phase(keyedApi, apiKey, invoiceIds, { key: replayKey, invoiceId: replayInvoice }));
      log(`round ${round + 1}: replay ${replay.at(-1)?.rps.toFixed(0)}/s p99 ${replay.at(-1)?.p99} ms`);
    }
    const { rows } = await import('pg').then(async ({ default: pg }) => {
      const client = new pg.Client({ connectionString: server.connectionString });
      await client.connect();
      try {
        return await client.query<{ server_version: string }>('SHOW server_version');
      } finally {
        await client.end();
      }
    });
    const of = (results: PhaseResult[], pick: (result: PhaseResult) => number) =>
      Math.round(median(results.map(pick)));
    const sum = (results: PhaseResult[]) => results.reduce((total, result) => total + result.non2xx, 0);
    const result: HttpBenchResult = {
      keyed_rps: of(keyed, (r) => r.rps),
      plain_rps: of(plain, (r) => r.rps),
      replay_rps: of(replay, (r) => r.rps),
      keyed_p50_ms: of(keyed, (r) => r.p50),
      keyed_p99_ms: of(keyed, (r) => r.p99),
      plain_p50_ms: of(plain, (r) => r.p50),
      plain_p99_ms: of(plain, (r) => r.p99),
      replay_p50_ms: of(replay, (r) => r.p50),
      replay_p99_ms: of(replay, (r) => r.p99),
      keyed_vs_plain: Number((median(keyed.map((r) => r.rps)) / median(plain.map((r) => r.rps))).toFixed(2)),
      replay_vs_keyed: Number(
        (median(replay.map((r) => r.rps)) / median(keyed.map((r) => r.rps))).toFixed(2),
      ),
      non_2xx: { keyed: sum(keyed), plain: sum(plain), replay: sum(replay) },
      connections: CONNECTIONS,
      seconds_per_phase: SECONDS_PER_PHASE,
      rounds: ROUNDS,
      invoices: INVOICES,
      postgres: `embedded ${rows[0]?.server_version ?? 'unknown'}, fsync on`,
      measured_at: new Date().toISOString(),
    };
    const file = join(root, 'tools', 'bench', 'results', 'http.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
    return result;
  } finally {
    await Promise.all(apis.map(stopApi));
    await server.stop();
  }
};

/** The `npm run bench -- http` entry. */
export const run = async (): Promise<void> => {
  const result = await runHttpBench((line) => console.log(line));
  console.log(JSON.stringify(result, null, 2));
  console.log(
    `keyed/plain ${result.keyed_vs_plain} (target >= 0.8), replay/keyed ${result.replay_vs_keyed} (target >= 2)`,
  );
};
