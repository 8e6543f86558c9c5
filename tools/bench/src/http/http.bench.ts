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
  /**
   * With `--sweep`: every side at each number of connections, measured in the same rounds (the fields above are
   * the 16-connection column).
   */
  readonly sweep?: readonly SweepPoint[];
  readonly pool_size: number;
  readonly seconds_per_phase: number;
  readonly rounds: number;
  readonly invoices: number;
  readonly postgres: string;
  /** `uptime`'s 1, 5 and 15 minute load averages before and after the run (2 shared cores: measurements are noisy). */
  readonly load_average: { readonly before: readonly number[]; readonly after: readonly number[] };
  readonly measured_at: string;
}

/** One number of connections in the sweep: each side's medians there, and Once's ratios to the article's. */
export interface SweepPoint {
  readonly connections: number;
  readonly sides: Readonly<
    Record<
      Side['name'],
      { readonly rps: number; readonly p50_ms: number; readonly p99_ms: number; readonly cpu_us: number }
    >
  >;
  readonly keyed_vs_article: number;
  readonly keyed_projector_off_vs_article: number;
  readonly replay_vs_article_replay: number;
  /** The article's p50 ÷ Once's keyed p50: above 1, Once answers a single request sooner. */
  readonly keyed_p50_vs_article_p50: number;
}

const CONNECTIONS = 16;
const SWEEP_CONNECTIONS = [1, 4, 16, 64] as const;
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

/** `connections` for a phase: each request a cash payment on a random invoice, with a fresh key or a fixed one. */
const phase = async (
  target: Target,
  connections: number,
  fixed?: { key: string; invoiceId: string },
): Promise<PhaseResult> => {
  const { invoiceIds } = target;
  const result = await autocannon({
    url: target.service.url,
    connections,
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

/** One measured side: its phases at each number of connections, and the connections it ran with in all. */
interface Side {
  readonly name: 'plain' | 'keyed' | 'keyed_projector_off' | 'article' | 'replay' | 'article_replay';
  readonly target: Target;
  readonly run: (connections: number) => Promise<PhaseResult>;
  readonly results: Map<number, PhaseResult[]>;
  readonly cpu: Map<number, PhaseCpu[]>;
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
  levels: readonly number[] = [CONNECTIONS],
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

    const warmups = [
      await phase(keyed, CONNECTIONS),
      await phase(plain, CONNECTIONS),
      await phase(peer, CONNECTIONS),
      await phase(projectorOff, CONNECTIONS),
    ];
    const side = (name: Side['name'], target: Target, fixed?: { key: string; invoiceId: string }): Side => ({
      name,
      target,
      run: (connections) => phase(target, connections, fixed),
      results: new Map(),
      cpu: new Map(),
    });
    const fresh: Side[] = [
      side('plain', plain),
      side('keyed', keyed),
      side('keyed_projector_off', projectorOff),
      side('article', peer),
    ];
    const replays: Side[] = [side('replay', keyed, onceReplay), side('article_replay', peer, articleReplay)];
    const sides = [...fresh, ...replays];
    for (let round = 0; round < rounds; round++) {
      for (const connections of rotated(levels, round)) {
        for (const measured of [...rotated(fresh, round), ...rotated(replays, round)]) {
          const { result, cpu } = await measurePhaseCpu(
            {
              serverPid: measured.target.service.child.pid as number,
              database: measured.target.database,
              serverUrl: server.connectionString,
              dataDirectory: server.dataDirectory,
            },
            () => measured.run(connections),
          );
          measured.results.set(connections, [...(measured.results.get(connections) ?? []), result]);
          measured.cpu.set(connections, [...(measured.cpu.get(connections) ?? []), cpu]);
          log(
            `round ${round + 1}, ${connections} connections: ${measured.name} ${result.rps.toFixed(0)}/s ` +
              `p50 ${result.p50} ms p99 ${result.p99} ms, CPU per request ${cpu.machine_busy_us} µs: server ` +
              `${cpu.server_us}, PostgreSQL ${postgresTotal(cpu)}, load generator ${cpu.load_generator_us}, ` +
              `other ${cpu.other_us}`,
          );
        }
      }
    }
    const sideNamed = (name: Side['name']) => sides.find((each) => each.name === name) as Side;
    const resultsOf = (name: Side['name'], connections: number = CONNECTIONS) =>
      sideNamed(name).results.get(connections) ?? [];
    const allResultsOf = (name: Side['name']) => [...sideNamed(name).results.values()].flat();
    // Requests a phase's end cut off may still have been recorded: at most one per connection of each phase.
    const cutOff = (name: Side['name']) =>
      [...sideNamed(name).results].reduce(
        (total, [connections, runs]) => total + connections * runs.length,
        0,
      );
    const okOf = (results: readonly PhaseResult[]) => results.reduce((total, result) => total + result.ok, 0);

    // Payments each side recorded: the setup's replayed one, warm-ups and measured phases (replays record none).
    const onceBalance = await onceBalances(server.connectionString);
    assertBalanced('once', onceBalance, {
      count:
        1 +
        okOf([...(warmups.slice(0, 2) as PhaseResult[]), ...allResultsOf('keyed'), ...allResultsOf('plain')]),
      inFlight: CONNECTIONS * 2 + cutOff('keyed') + cutOff('plain'),
    });
    const articleBalance = await articleBalances(article.databaseUrl);
    assertBalanced('article', articleBalance, {
      count: 1 + okOf([warmups[2] as PhaseResult, ...allResultsOf('article')]),
      inFlight: CONNECTIONS + cutOff('article'),
    });
    // The projector-off side's read models are caught up by a projector started now, then checked the same way.
    processes.push({ url: '', child: await startOnceProjector({ databaseUrl: projectorOffUrl }) });
    const projectorOffBalance = await onceBalances(projectorOffUrl);
    assertBalanced('once without projector', projectorOffBalance, {
      count: okOf([warmups[3] as PhaseResult, ...allResultsOf('keyed_projector_off')]),
      inFlight: CONNECTIONS + cutOff('keyed_projector_off'),
    });
    log(
      `balanced: once paid ${onceBalance.paid} over ${onceBalance.count} payments, ` +
        `article paid ${articleBalance.paid} over ${articleBalance.count} payments`,
    );

    const of = (name: Side['name'], pick: (result: PhaseResult) => number, connections = CONNECTIONS) =>
      Math.round(median(resultsOf(name, connections).map(pick)));
    const ratioOf = (
      top: Side['name'],
      bottom: Side['name'],
      pick: (result: PhaseResult) => number,
      connections = CONNECTIONS,
    ) =>
      Number(
        (
          median(resultsOf(top, connections).map(pick)) / median(resultsOf(bottom, connections).map(pick))
        ).toFixed(2),
      );
    const ratio = (top: Side['name'], bottom: Side['name'], connections = CONNECTIONS) =>
      ratioOf(top, bottom, (r) => r.rps, connections);
    const sweep = levels.map((connections): SweepPoint => ({
      connections,
      sides: Object.fromEntries(
        sides.map((measured) => [
          measured.name,
          {
            rps: of(measured.name, (r) => r.rps, connections),
            p50_ms: of(measured.name, (r) => r.p50, connections),
            p99_ms: of(measured.name, (r) => r.p99, connections),
            cpu_us: medianPhaseCpu(measured.cpu.get(connections) ?? [])?.machine_busy_us ?? Number.NaN,
          },
        ]),
      ) as SweepPoint['sides'],
      keyed_vs_article: ratio('keyed', 'article', connections),
      keyed_projector_off_vs_article: ratio('keyed_projector_off', 'article', connections),
      replay_vs_article_replay: ratio('replay', 'article_replay', connections),
      keyed_p50_vs_article_p50: ratioOf('article', 'keyed', (r) => r.p50, connections),
    }));
    const non2xx = (name: Side['name']) =>
      allResultsOf(name).reduce((total, result) => total + result.non2xx, 0);
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
        sides.map(
          (measured) => [measured.name, medianPhaseCpu(measured.cpu.get(CONNECTIONS) ?? [])] as const,
        ),
      ),
      balances: { once: onceBalance, once_projector_off: projectorOffBalance, article: articleBalance },
      connections: CONNECTIONS,
      ...(levels.length > 1 ? { sweep } : {}),
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

/**
 * The `npm run bench -- http [--rounds N] [--sweep]` entry (3 rounds by default; more where the machine is noisy).
 * `--sweep` measures every side at 1, 4, 16 and 64 connections in each round instead of at 16 only.
 */
export const run = async (args: readonly string[] = []): Promise<void> => {
  const index = args.indexOf('--rounds');
  const rounds = index === -1 ? DEFAULT_ROUNDS : Number(args[index + 1]);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error('--rounds takes a whole number of rounds, 1 or more');
  const levels = args.includes('--sweep') ? SWEEP_CONNECTIONS : [CONNECTIONS];
  const result = await runHttpBench((line) => console.log(line), rounds, levels);
  console.log(JSON.stringify(result, null, 2));
  if (result.sweep) console.table(sweepTable(result.sweep));
  console.log(
    `keyed/plain ${result.keyed_vs_plain} (target >= 0.8), replay/keyed ${result.replay_vs_keyed} (target >= 2), ` +
      `keyed/article ${result.keyed_vs_article} (target >= 0.75), without projector ` +
      `${result.keyed_projector_off_vs_article} (target >= 0.9), replay/article replay ` +
      `${result.replay_vs_article_replay} (target >= 3)`,
  );
};

/** The sweep as a table: one row per number of connections, Once's ratios to the article's and each side's req/s. */
const sweepTable = (sweep: readonly SweepPoint[]) =>
  sweep.map((point) => ({
    connections: point.connections,
    'keyed ÷ article': point.keyed_vs_article,
    'keyed, no projector ÷ article': point.keyed_projector_off_vs_article,
    'replay ÷ article replay': point.replay_vs_article_replay,
    'article p50 ÷ keyed p50': point.keyed_p50_vs_article_p50,
    'keyed req/s': point.sides.keyed.rps,
    'article req/s': point.sides.article.rps,
    'keyed p50 ms': point.sides.keyed.p50_ms,
    'article p50 ms': point.sides.article.p50_ms,
  }));
