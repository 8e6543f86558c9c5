import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { startEmbeddedPostgres } from '@once/postgres';
import {
  articleBalances,
  assertBalanced,
  createArticleDatabase,
  onceBalances,
} from '../article/article-database.js';
import type { Balances } from '../article/article-database.js';
import {
  createDatabase,
  createOnceApiKey,
  issueOnceInvoices,
  postCreated,
  repositoryRoot,
  startArticlePeer,
  startOnceApi,
  startOnceProjector,
  startPlainApi,
  stopProcess,
  POOL_SIZE,
} from '../processes/bench-processes.js';
import type { BenchService } from '../processes/bench-processes.js';
import { median } from '../median.js';
import { loadAverages } from '../write-cost/machine-load.js';
import { measurePhaseCpu, medianPhaseCpu, postgresTotal } from './phase-cpu.js';
import type { PhaseCpu } from './phase-cpu.js';

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
  /** Once's keyed payments with no projector at all (its own database; the read models are caught up after the run). */
  readonly keyed_projector_off_rps: number;
  readonly keyed_projector_off_p99_ms: number;
  readonly keyed_projector_off_vs_article: number;
  readonly replay_vs_keyed: number;
  /** The article peer (tools/bench/src/article): the single-table design, measured in the same rounds. */
  readonly article_rps: number;
  readonly article_replay_rps: number;
  readonly article_p99_ms: number;
  readonly keyed_vs_article: number;
  readonly replay_vs_article_replay: number;
  /** Answers other than 2xx per phase (conflicts that outlasted the retries, 503s); 0 in a clean run. */
  readonly non_2xx: {
    readonly keyed: number;
    readonly keyed_projector_off: number;
    readonly plain: number;
    readonly replay: number;
    readonly article: number;
    readonly article_replay: number;
  };
  /**
   * Where the machine's CPU went per answered request, medians over each side's phases: the server process (all its
   * threads), its database's PostgreSQL backends by application name, the load generator and the rest.
   */
  readonly cpu_per_request: Readonly<Partial<Record<Side['name'], PhaseCpu>>>;
  /** Both sides checked after the run: paid amounts equal the sum of recorded payments, and those the confirmed ones. */
  readonly balances: {
    readonly once: Balances;
    readonly once_projector_off: Balances;
    readonly article: Balances;
  };
  readonly connections: number;
  readonly pool_size: number;
  readonly seconds_per_phase: number;
  readonly rounds: number;
  readonly invoices: number;
  readonly postgres: string;
  /** `uptime`'s 1, 5 and 15 minute load averages before and after the run (2 shared cores: measurements are noisy). */
  readonly load_average: { readonly before: readonly number[]; readonly after: readonly number[] };
  readonly measured_at: string;
}

const CONNECTIONS = 16;
const SECONDS_PER_PHASE = 5;
const DEFAULT_ROUNDS = 3;
/**
 * Payments spread over this many invoices, so 16 connections rarely race on one stream, and every invoice stream
 * (read whole by each payment) stays short enough that the phases run late see nearly the streams the early ones
 * saw: with 256 invoices they grew by about 20 events a round and each later phase was measured on longer reads.
 */
const INVOICES = 1024;
const INVOICE_TOTAL = 1e12;

interface PhaseResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly ok: number;
  readonly non2xx: number;
}

const payment = { method: 'cash', amount: 1, currency: 'EUR' };
const paymentText = JSON.stringify(payment);

/** A server under load: where it answers, whose key it takes, which invoices it pays, which database it writes. */
interface Target {
  readonly service: BenchService;
  readonly apiKey: string;
  readonly invoiceIds: readonly string[];
  readonly database: string;
}

/** 16 connections for `seconds`: each request a cash payment on a random invoice, with a fresh key or a fixed one. */
const phase = async (target: Target, fixed?: { key: string; invoiceId: string }): Promise<PhaseResult> => {
  const { invoiceIds } = target;
  const result = await autocannon({
    url: target.service.url,
    connections: CONNECTIONS,
    duration: SECONDS_PER_PHASE,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => ({
          ...request,
          path: `/invoices/${fixed?.invoiceId ?? (invoiceIds[Math.floor(Math.random() * invoiceIds.length)] as string)}/payments`,
          headers: {
            authorization: `Bearer ${target.apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': fixed?.key ?? randomUUID(),
          },
          body: paymentText,
        }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
  };
};

/** The database a connection string names. */
const databaseOf = (connectionString: string): string =>
  new URL(connectionString).pathname.slice(1) || 'postgres';

/** One measured side: its phases, and whether its payments count towards Once's or the article's balances. */
interface Side {
  readonly name: 'plain' | 'keyed' | 'keyed_projector_off' | 'article' | 'replay' | 'article_replay';
  readonly target: Target;
  readonly run: () => Promise<PhaseResult>;
  readonly results: PhaseResult[];
  readonly cpu: PhaseCpu[];
}

/** Sides in a different order each round, so no side always runs first, or on the longer streams. */
const rotated = <T>(items: readonly T[], round: number): T[] =>
  items.map((_, index) => items[(index + round) % items.length] as T);

const serverVersion = async (connectionString: string): Promise<string> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
};

/**
 * The api over HTTP with autocannon (16 connections) on embedded PostgreSQL with fsync on: `POST
 * /invoices/:id/payments` with fresh keys (its projector in-process, as `npm start` runs it), the same route without the
 * idempotency layer (`plain-api.ts`: the same app with the plain engine, a second process on the same database, paying
 * invoices of its own: each api is the only writer of its invoices, as one `npm start` is), replays of one key, and
 * the article peer (the single-table design, its own database in the same server, same pool size) with fresh keys and
 * replays. Phases alternate round after round and the medians count. After the run both sides' paid amounts must
 * equal the sum of their recorded payments, and those the confirmed ones.
 */
export const runHttpBench = async (
  log: (line: string) => void = () => undefined,
  rounds: number = DEFAULT_ROUNDS,
): Promise<HttpBenchResult> => {
  const loadBefore = loadAverages();
  const server = await startEmbeddedPostgres();
  const processes: BenchService[] = [];
  try {
    const article = await createArticleDatabase(server.connectionString, {
      invoices: INVOICES,
      total: INVOICE_TOTAL,
    });
    const keyedApi = await startOnceApi({ databaseUrl: server.connectionString });
    processes.push(keyedApi);
    const plainApi = await startPlainApi({ databaseUrl: server.connectionString });
    processes.push(plainApi);
    const articleApi = await startArticlePeer({ databaseUrl: article.databaseUrl });
    processes.push(articleApi);
    // No projector at all: Once's api on a database of its own, so the in-process projector above never sees it.
    const projectorOffUrl = await createDatabase(server.connectionString, 'once_projector_off');
    const projectorOffApi = await startOnceApi({ databaseUrl: projectorOffUrl, externalProjector: true });
    processes.push(projectorOffApi);
    const apiKey = await createOnceApiKey(server.connectionString);
    const invoiceIds = await issueOnceInvoices(keyedApi.url, apiKey, {
      count: INVOICES,
      total: INVOICE_TOTAL,
    });
    const onceDatabase = databaseOf(server.connectionString);
    const keyed: Target = { service: keyedApi, apiKey, invoiceIds, database: onceDatabase };
    const projectorOffKey = await createOnceApiKey(projectorOffUrl);
    const projectorOff: Target = {
      service: projectorOffApi,
      apiKey: projectorOffKey,
      invoiceIds: await issueOnceInvoices(projectorOffApi.url, projectorOffKey, {
        count: INVOICES,
        total: INVOICE_TOTAL,
      }),
      database: databaseOf(projectorOffUrl),
    };
    const plain: Target = {
      service: plainApi,
      apiKey,
      invoiceIds: await issueOnceInvoices(plainApi.url, apiKey, { count: INVOICES, total: INVOICE_TOTAL }),
      database: onceDatabase,
    };
    const peer: Target = {
      service: articleApi,
      apiKey: article.apiKey,
      invoiceIds: article.invoiceIds,
      database: databaseOf(article.databaseUrl),
    };
    const replayOf = async (target: Target) => {
      const fixed = { key: randomUUID(), invoiceId: target.invoiceIds[0] as string };
      await postCreated(
        `${target.service.url}/invoices/${fixed.invoiceId}/payments`,
        target.apiKey,
        fixed.key,
        payment,
      );
      return fixed;
    };
    const onceReplay = await replayOf(keyed);
    const articleReplay = await replayOf(peer);

    const warmups = [await phase(keyed), await phase(plain), await phase(peer), await phase(projectorOff)];
    const side = (name: Side['name'], target: Target, fixed?: { key: string; invoiceId: string }): Side => ({
      name,
      target,
      run: () => phase(target, fixed),
      results: [],
      cpu: [],
    });
    const fresh: Side[] = [
      side('plain', plain),
      side('keyed', keyed),
      side('keyed_projector_off', projectorOff),
      side('article', peer),
    ];
    const replays: Side[] = [side('replay', keyed, onceReplay), side('article_replay', peer, articleReplay)];
    for (let round = 0; round < rounds; round++) {
      for (const measured of [...rotated(fresh, round), ...rotated(replays, round)]) {
        const { result, cpu } = await measurePhaseCpu(
          {
            serverPid: measured.target.service.child.pid as number,
            database: measured.target.database,
            serverUrl: server.connectionString,
            dataDirectory: server.dataDirectory,
          },
          measured.run,
        );
        measured.results.push(result);
        measured.cpu.push(cpu);
        log(
          `round ${round + 1}: ${measured.name} ${result.rps.toFixed(0)}/s p99 ${result.p99} ms, ` +
            `CPU per request ${cpu.machine_busy_us} µs: server ${cpu.server_us}, PostgreSQL ${postgresTotal(cpu)}, ` +
            `load generator ${cpu.load_generator_us}, other ${cpu.other_us}`,
        );
      }
    }
    const resultsOf = (name: Side['name']) =>
      [...fresh, ...replays].find((side) => side.name === name)?.results ?? [];
    const okOf = (results: readonly PhaseResult[]) => results.reduce((total, result) => total + result.ok, 0);

    // Payments each side recorded: the setup's replayed one, warm-ups and measured phases (replays record none).
    const onceBalance = await onceBalances(server.connectionString);
    assertBalanced('once', onceBalance, {
      count:
        1 + okOf([...(warmups.slice(0, 2) as PhaseResult[]), ...resultsOf('keyed'), ...resultsOf('plain')]),
      inFlight: CONNECTIONS * (2 + resultsOf('keyed').length + resultsOf('plain').length),
    });
    const articleBalance = await articleBalances(article.databaseUrl);
    assertBalanced('article', articleBalance, {
      count: 1 + okOf([warmups[2] as PhaseResult, ...resultsOf('article')]),
      inFlight: CONNECTIONS * (1 + resultsOf('article').length),
    });
    // The projector-off side's read models are caught up by a projector started now, then checked the same way.
    processes.push({ url: '', child: await startOnceProjector({ databaseUrl: projectorOffUrl }) });
    const projectorOffBalance = await onceBalances(projectorOffUrl);
    assertBalanced('once without projector', projectorOffBalance, {
      count: okOf([warmups[3] as PhaseResult, ...resultsOf('keyed_projector_off')]),
      inFlight: CONNECTIONS * (1 + resultsOf('keyed_projector_off').length),
    });
    log(
      `balanced: once paid ${onceBalance.paid} over ${onceBalance.count} payments, ` +
        `article paid ${articleBalance.paid} over ${articleBalance.count} payments`,
    );

    const of = (name: Side['name'], pick: (result: PhaseResult) => number) =>
      Math.round(median(resultsOf(name).map(pick)));
    const ratio = (top: Side['name'], bottom: Side['name']) =>
      Number(
        (median(resultsOf(top).map((r) => r.rps)) / median(resultsOf(bottom).map((r) => r.rps))).toFixed(2),
      );
    const non2xx = (name: Side['name']) =>
      resultsOf(name).reduce((total, result) => total + result.non2xx, 0);
    const result: HttpBenchResult = {
      keyed_rps: of('keyed', (r) => r.rps),
      plain_rps: of('plain', (r) => r.rps),
      replay_rps: of('replay', (r) => r.rps),
      keyed_p50_ms: of('keyed', (r) => r.p50),
      keyed_p99_ms: of('keyed', (r) => r.p99),
      plain_p50_ms: of('plain', (r) => r.p50),
      plain_p99_ms: of('plain', (r) => r.p99),
      replay_p50_ms: of('replay', (r) => r.p50),
      replay_p99_ms: of('replay', (r) => r.p99),
      keyed_vs_plain: ratio('keyed', 'plain'),
      keyed_projector_off_rps: of('keyed_projector_off', (r) => r.rps),
      keyed_projector_off_p99_ms: of('keyed_projector_off', (r) => r.p99),
      keyed_projector_off_vs_article: ratio('keyed_projector_off', 'article'),
      replay_vs_keyed: ratio('replay', 'keyed'),
      article_rps: of('article', (r) => r.rps),
      article_replay_rps: of('article_replay', (r) => r.rps),
      article_p99_ms: of('article', (r) => r.p99),
      keyed_vs_article: ratio('keyed', 'article'),
      replay_vs_article_replay: ratio('replay', 'article_replay'),
      non_2xx: {
        keyed: non2xx('keyed'),
        keyed_projector_off: non2xx('keyed_projector_off'),
        plain: non2xx('plain'),
        replay: non2xx('replay'),
        article: non2xx('article'),
        article_replay: non2xx('article_replay'),
      },
      cpu_per_request: Object.fromEntries(
        [...fresh, ...replays].map((measured) => [measured.name, medianPhaseCpu(measured.cpu)] as const),
      ),
      balances: { once: onceBalance, once_projector_off: projectorOffBalance, article: articleBalance },
      connections: CONNECTIONS,
      pool_size: POOL_SIZE,
      seconds_per_phase: SECONDS_PER_PHASE,
      rounds,
      invoices: INVOICES,
      postgres: `embedded ${await serverVersion(server.connectionString)}, fsync on`,
      load_average: { before: loadBefore, after: loadAverages() },
      measured_at: new Date().toISOString(),
    };
    const file = join(repositoryRoot, 'tools', 'bench', 'results', 'http.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
    return result;
  } finally {
    await Promise.all(processes.map((service) => stopProcess(service.child)));
    await server.stop();
  }
};

/** The `npm run bench -- http [--rounds N]` entry (3 rounds by default; more where the machine is noisy). */
export const run = async (args: readonly string[] = []): Promise<void> => {
  const index = args.indexOf('--rounds');
  const rounds = index === -1 ? DEFAULT_ROUNDS : Number(args[index + 1]);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error('--rounds takes a whole number of rounds, 1 or more');
  const result = await runHttpBench((line) => console.log(line), rounds);
  console.log(JSON.stringify(result, null, 2));
  console.log(
    `keyed/plain ${result.keyed_vs_plain} (target >= 0.8), replay/keyed ${result.replay_vs_keyed} (target >= 2), ` +
      `keyed/article ${result.keyed_vs_article} (target >= 0.75), without projector ` +
      `${result.keyed_projector_off_vs_article} (target >= 0.9), replay/article replay ` +
      `${result.replay_vs_article_replay} (target >= 3)`,
  );
};
