import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
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
import { latencyPercentile } from './latency-percentile.js';
import { refreshPerformanceDoc } from './performance-doc.js';
import { loadAverages } from '../write-cost/machine-load.js';
import { measurePhaseCpu, medianPhaseCpu, postgresTotal } from './phase-cpu.js';
import type { PhaseCpu } from './phase-cpu.js';
import type { HttpBenchResult, SideName, SweepPoint } from './http-bench-result.js';

const CONNECTIONS = 16;
const SWEEP_CONNECTIONS = [1, 4, 16, 64] as const;
const performanceDoc = join(repositoryRoot, 'docs', 'PERFORMANCE.md');
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

const paymentHeaders = (target: Target, key: string) => ({
  authorization: `Bearer ${target.apiKey}`,
  'content-type': 'application/json',
  'idempotency-key': key,
});

/** A cash payment on a random invoice under a fresh key, built anew for each request. */
const freshRequest = (target: Target): autocannon.Request => ({
  method: 'POST',
  setupRequest: (request) => ({
    ...request,
    path: `/invoices/${target.invoiceIds[Math.floor(Math.random() * target.invoiceIds.length)] as string}/payments`,
    headers: paymentHeaders(target, randomUUID()),
    body: paymentText,
  }),
});

/**
 * The same request every time, as a replay phase sends it: built once, so the load generator, which shares the
 * machine's cores with the servers, spends no time rebuilding it.
 */
const replayRequest = (target: Target, fixed: { key: string; invoiceId: string }): autocannon.Request => ({
  method: 'POST',
  path: `/invoices/${fixed.invoiceId}/payments`,
  headers: paymentHeaders(target, fixed.key),
  body: paymentText,
});

/** `connections` for a phase: each request a cash payment on a random invoice, with a fresh key or a fixed one. */
const phase = async (
  target: Target,
  connections: number,
  fixed?: { key: string; invoiceId: string },
): Promise<PhaseResult> => {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const running = autocannon(
      {
        url: target.service.url,
        connections,
        duration: SECONDS_PER_PHASE,
        requests: [fixed ? replayRequest(target, fixed) : freshRequest(target)],
      },
      (error, done) => (error ? reject(error as Error) : resolve(done)),
    );
    running.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
    });
  });
  return {
    rps: result.requests.average,
    p50: latencyPercentile(latencies, 50),
    p99: latencyPercentile(latencies, 99),
    ok: result['2xx'],
    non2xx: result.non2xx,
  };
};

/** The database a connection string names. */
const databaseOf = (connectionString: string): string =>
  new URL(connectionString).pathname.slice(1) || 'postgres';

/**
 * A database the sides write their payments to: what they had confirmed (answered 201) and how many requests a
 * phase's end may have cut off after the server committed them.
 */
interface Ledger {
  readonly name: string;
  /** Its balances, once its read models have caught up. */
  readonly balances: () => Promise<Balances>;
  /** False where no projector runs during the phases: checked after the run only. */
  readonly checkedEachPhase: boolean;
  confirmed: number;
  cutOff: number;
}

const ledger = (name: string, balances: () => Promise<Balances>, confirmed: number): Ledger => ({
  name,
  balances,
  checkedEachPhase: true,
  confirmed,
  cutOff: 0,
});

/** Throws unless the ledger's database is balanced and holds the payments its sides confirmed. */
const checkLedger = async (checked: Ledger): Promise<Balances> => {
  const balances = await checked.balances();
  assertBalanced(checked.name, balances, { count: checked.confirmed, inFlight: checked.cutOff });
  return balances;
};

/** One measured side: its phases at each number of connections, and the connections it ran with in all. */
interface Side {
  readonly name: SideName;
  readonly target: Target;
  /** The database its payments go to, checked after each of its phases. */
  readonly ledger: Ledger;
  /** Whether its requests record payments (a replay records none). */
  readonly records: boolean;
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
 * replays; with `ONCE_SHARED_COMMITS=false`, the keyed api again on a database of its own. Phases alternate round after
 * round and the medians count. After each phase, the paid amounts of the database it wrote must equal the sum of its
 * recorded payments, and those the confirmed ones (the side without a projector: after the run, once one caught up).
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
    // Shared commits off: Once's api with its projector on a database of its own, so its costs are its own.
    const unsharedUrl = await createDatabase(server.connectionString, 'once_unshared');
    const unsharedApi = await startOnceApi({
      databaseUrl: unsharedUrl,
      environment: { ONCE_SHARED_COMMITS: 'false' },
    });
    processes.push(unsharedApi);
    const apiKey = await createOnceApiKey(server.connectionString);
    const invoiceIds = await issueOnceInvoices(keyedApi.url, apiKey, {
      count: INVOICES,
      total: INVOICE_TOTAL,
    });
    const onceDatabase = databaseOf(server.connectionString);
    const keyed: Target = { service: keyedApi, apiKey, invoiceIds, database: onceDatabase };
    const ownTarget = async (service: BenchService, databaseUrl: string): Promise<Target> => {
      const ownKey = await createOnceApiKey(databaseUrl);
      return {
        service,
        apiKey: ownKey,
        invoiceIds: await issueOnceInvoices(service.url, ownKey, { count: INVOICES, total: INVOICE_TOTAL }),
        database: databaseOf(databaseUrl),
      };
    };
    const projectorOff = await ownTarget(projectorOffApi, projectorOffUrl);
    const unshared = await ownTarget(unsharedApi, unsharedUrl);
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

    // Each database's payments so far: the setup's replayed one on Once's and the article's.
    const onceLedger = ledger('once', () => onceBalances(server.connectionString), 1);
    const unsharedLedger = ledger('once without shared commits', () => onceBalances(unsharedUrl), 0);
    const articleLedger = ledger('article', () => articleBalances(article.databaseUrl), 1);
    // No projector runs for this one during the phases: it is checked once one has caught up, after the run.
    const projectorOffLedger = {
      ...ledger('once without projector', () => onceBalances(projectorOffUrl), 0),
      checkedEachPhase: false,
    };
    const side = (
      name: Side['name'],
      target: Target,
      writes: Ledger,
      fixed?: { key: string; invoiceId: string },
    ): Side => ({
      name,
      target,
      ledger: writes,
      records: fixed === undefined,
      run: (connections) => phase(target, connections, fixed),
      results: new Map(),
      cpu: new Map(),
    });
    const fresh: Side[] = [
      side('plain', plain, onceLedger),
      side('keyed', keyed, onceLedger),
      side('keyed_unshared', unshared, unsharedLedger),
      side('keyed_projector_off', projectorOff, projectorOffLedger),
      side('article', peer, articleLedger),
    ];
    const replays: Side[] = [
      side('replay', keyed, onceLedger, onceReplay),
      side('article_replay', peer, articleLedger, articleReplay),
    ];
    const sides = [...fresh, ...replays];
    const record = (measured: Side, connections: number, result: PhaseResult) => {
      if (!measured.records) return;
      measured.ledger.confirmed += result.ok;
      measured.ledger.cutOff += connections;
    };
    // One unmeasured phase per side first, replays too: every side is measured warm, none in its first seconds.
    for (const warmedUp of sides) record(warmedUp, CONNECTIONS, await warmedUp.run(CONNECTIONS));
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
          record(measured, connections, result);
          if (measured.ledger.checkedEachPhase) await checkLedger(measured.ledger);
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

    // The projector-off side's read models are caught up by a projector started now, then checked like the others.
    processes.push({ url: '', child: await startOnceProjector({ databaseUrl: projectorOffUrl }) });
    const [onceBalance, unsharedBalance, projectorOffBalance, articleBalance] = await Promise.all([
      checkLedger(onceLedger),
      checkLedger(unsharedLedger),
      checkLedger(projectorOffLedger),
      checkLedger(articleLedger),
    ]);
    log(
      `balanced: once paid ${onceBalance.paid} over ${onceBalance.count} payments, ` +
        `article paid ${articleBalance.paid} over ${articleBalance.count} payments`,
    );

    const of = (name: Side['name'], pick: (result: PhaseResult) => number, connections = CONNECTIONS) =>
      Math.round(median(resultsOf(name, connections).map(pick)));
    const latencyOf = (
      name: Side['name'],
      pick: (result: PhaseResult) => number,
      connections = CONNECTIONS,
    ) => Number(median(resultsOf(name, connections).map(pick)).toFixed(2));
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
            p50_ms: latencyOf(measured.name, (r) => r.p50, connections),
            p99_ms: latencyOf(measured.name, (r) => r.p99, connections),
            cpu_us: medianPhaseCpu(measured.cpu.get(connections) ?? [])?.machine_busy_us ?? Number.NaN,
          },
        ]),
      ) as SweepPoint['sides'],
      keyed_vs_article: ratio('keyed', 'article', connections),
      keyed_unshared_vs_article: ratio('keyed_unshared', 'article', connections),
      keyed_projector_off_vs_article: ratio('keyed_projector_off', 'article', connections),
      replay_vs_article_replay: ratio('replay', 'article_replay', connections),
      keyed_p50_vs_article: ratioOf('keyed', 'article', (r) => r.p50, connections),
      keyed_unshared_p50_vs_article: ratioOf('keyed_unshared', 'article', (r) => r.p50, connections),
    }));
    const non2xx = (name: Side['name']) =>
      allResultsOf(name).reduce((total, result) => total + result.non2xx, 0);
    const result: HttpBenchResult = {
      keyed_rps: of('keyed', (r) => r.rps),
      plain_rps: of('plain', (r) => r.rps),
      replay_rps: of('replay', (r) => r.rps),
      keyed_p50_ms: latencyOf('keyed', (r) => r.p50),
      keyed_p99_ms: latencyOf('keyed', (r) => r.p99),
      plain_p50_ms: latencyOf('plain', (r) => r.p50),
      plain_p99_ms: latencyOf('plain', (r) => r.p99),
      replay_p50_ms: latencyOf('replay', (r) => r.p50),
      replay_p99_ms: latencyOf('replay', (r) => r.p99),
      keyed_vs_plain: ratio('keyed', 'plain'),
      keyed_unshared_rps: of('keyed_unshared', (r) => r.rps),
      keyed_unshared_p50_ms: latencyOf('keyed_unshared', (r) => r.p50),
      keyed_unshared_p99_ms: latencyOf('keyed_unshared', (r) => r.p99),
      keyed_unshared_vs_article: ratio('keyed_unshared', 'article'),
      keyed_vs_keyed_unshared: ratio('keyed', 'keyed_unshared'),
      keyed_projector_off_rps: of('keyed_projector_off', (r) => r.rps),
      keyed_projector_off_p99_ms: latencyOf('keyed_projector_off', (r) => r.p99),
      keyed_projector_off_vs_article: ratio('keyed_projector_off', 'article'),
      replay_vs_keyed: ratio('replay', 'keyed'),
      article_rps: of('article', (r) => r.rps),
      article_replay_rps: of('article_replay', (r) => r.rps),
      article_p50_ms: latencyOf('article', (r) => r.p50),
      article_p99_ms: latencyOf('article', (r) => r.p99),
      keyed_vs_article: ratio('keyed', 'article'),
      replay_vs_article_replay: ratio('replay', 'article_replay'),
      non_2xx: {
        keyed: non2xx('keyed'),
        keyed_unshared: non2xx('keyed_unshared'),
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
      balances: {
        once: onceBalance,
        once_unshared: unsharedBalance,
        once_projector_off: projectorOffBalance,
        article: articleBalance,
      },
      connections: CONNECTIONS,
      ...(levels.length > 1 ? { sweep } : {}),
      ...(levels.includes(1)
        ? {
            p50_vs_article: {
              keyed: ratioOf('keyed', 'article', (r) => r.p50, 1),
              keyed_unshared: ratioOf('keyed_unshared', 'article', (r) => r.p50, 1),
            },
          }
        : {}),
      pool_size: POOL_SIZE,
      seconds_per_phase: SECONDS_PER_PHASE,
      rounds,
      invoices: INVOICES,
      postgres: `embedded ${await serverVersion(server.connectionString)}, fsync on`,
      load_average: { before: loadBefore, after: loadAverages() },
      cpus: availableParallelism(),
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

/** The sweep's numbers of connections: 1, 4, 16 and 64, or those `--connections 16,64` names. */
const sweepConnections = (args: readonly string[]): readonly number[] => {
  const index = args.indexOf('--connections');
  if (index === -1) return SWEEP_CONNECTIONS;
  const levels = (args[index + 1] ?? '').split(',').map(Number);
  if (levels.some((level) => !Number.isInteger(level) || level < 1))
    throw new Error('--connections takes whole numbers of connections separated by commas, e.g. 16,64');
  return levels;
};

/**
 * The `npm run bench -- http [--rounds N] [--sweep [--connections 16,64]]` entry (3 rounds by default; more where the
 * machine is noisy). `--sweep` measures every side at 1, 4, 16 and 64 connections (or those named) in each round
 * instead of at 16 only.
 */
export const run = async (args: readonly string[] = []): Promise<void> => {
  const index = args.indexOf('--rounds');
  const rounds = index === -1 ? DEFAULT_ROUNDS : Number(args[index + 1]);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error('--rounds takes a whole number of rounds, 1 or more');
  const levels = args.includes('--sweep') ? sweepConnections(args) : [CONNECTIONS];
  const result = await runHttpBench((line) => console.log(line), rounds, levels);
  console.log(JSON.stringify(result, null, 2));
  if (result.sweep) {
    console.table(sweepTable(result.sweep));
    if (levels === SWEEP_CONNECTIONS) {
      await refreshPerformanceDoc(result, performanceDoc);
      console.log(`wrote ${performanceDoc}`);
    }
    const at = (connections: number) => result.sweep?.find((point) => point.connections === connections);
    console.log(
      `keyed/article ${at(16)?.keyed_vs_article} at 16 connections (target >= 1.0), ${at(64)?.keyed_vs_article} ` +
        `at 64 (target >= 1.3); keyed p50/article p50 at 1 connection ${result.p50_vs_article?.keyed} ` +
        `(target <= 1.25); replay/article replay ` +
        `${result.sweep.map((point) => point.replay_vs_article_replay).join(', ')} (target >= 5 at each); ` +
        `shared/unshared ${result.sweep.map((point) => (point.keyed_vs_article / point.keyed_unshared_vs_article).toFixed(2)).join(', ')}`,
    );
  } else
    console.log(
      `keyed/plain ${result.keyed_vs_plain} (target >= 0.8), replay/keyed ${result.replay_vs_keyed} (target >= 2), ` +
        `keyed/article ${result.keyed_vs_article} (target >= 1.0), unshared ${result.keyed_unshared_vs_article}, ` +
        `without projector ${result.keyed_projector_off_vs_article}, replay/article replay ` +
        `${result.replay_vs_article_replay} (target >= 5)`,
    );
};

/**
 * The sweep as a table: one row per number of connections, Once's ratios to the article's (shared commits on and
 * off), each side's req/s and its p50 and p99 in milliseconds.
 */
const sweepTable = (sweep: readonly SweepPoint[]) =>
  sweep.map((point) => ({
    connections: point.connections,
    'keyed ÷ article': point.keyed_vs_article,
    'unshared ÷ article': point.keyed_unshared_vs_article,
    'no projector ÷ article': point.keyed_projector_off_vs_article,
    'replay ÷ article replay': point.replay_vs_article_replay,
    'keyed p50 ÷ article p50': point.keyed_p50_vs_article,
    'unshared p50 ÷ article p50': point.keyed_unshared_p50_vs_article,
    ...Object.fromEntries(
      (['keyed', 'keyed_unshared', 'article'] as const).flatMap((name) => [
        [`${name} req/s`, point.sides[name].rps],
        [`${name} p50/p99 ms`, `${point.sides[name].p50_ms} / ${point.sides[name].p99_ms}`],
      ]),
    ),
  }));
