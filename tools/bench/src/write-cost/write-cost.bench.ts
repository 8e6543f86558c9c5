import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { startEmbeddedPostgres } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';
import { createArticleDatabase } from '../article/article-database.js';
import {
  createDatabase,
  createOnceApiKey,
  issueOnceInvoices,
  repositoryRoot,
  startArticlePeer,
  startOnceApi,
  startOnceProjector,
  stopProcess,
  POOL_SIZE,
} from '../processes/bench-processes.js';
import type { BenchService } from '../processes/bench-processes.js';
import { median } from '../median.js';
import { loadAverages } from './machine-load.js';
import { childProcesses, cpuBetween, cpuSnapshot, postmasterPid } from './process-cpu.js';
import { ServerStatistics, statisticsSettings } from './server-statistics.js';
import type { StatementCost, WalShare } from './server-statistics.js';

const CONNECTIONS = 16;
const INVOICES = 1024;
const INVOICE_TOTAL = 1e12;
const payment = JSON.stringify({ method: 'cash', amount: 1, currency: 'EUR' });

/** What one fresh keyed payment costs a side, averaged over a window of requests. */
export interface WindowCost {
  readonly requests: number;
  readonly requests_per_second: number;
  /** Node CPU per request, µs: the api (and for Once its projector, a process of its own here). */
  readonly api_cpu_us: number;
  readonly projector_cpu_us: number;
  /** PostgreSQL CPU per request, µs: the side's own backends, and the server's shared processes (WAL writer, …). */
  readonly postgres_backend_cpu_us: number;
  readonly postgres_shared_cpu_us: number;
  /** Server time of top-level statements per request (planning + execution), µs, from pg_stat_statements. */
  readonly statement_time_us: number;
  /** Statements sent per request (each a round trip). */
  readonly round_trips: number;
  /** Of those, the projector's (its reads of the log, read-model writes, checkpoints, BEGIN/COMMIT), and its commits. */
  readonly projector_round_trips: number;
  readonly projector_statement_time_us: number;
  readonly projector_commits: number;
  /** WAL per request, bytes, by pg_current_wal_lsn before and after. */
  readonly wal_bytes: number;
  /** WAL flushes (fsyncs) per request, the whole server's (one side runs at a time), from pg_stat_io. */
  readonly wal_flushes: number;
  /**
   * Time a request's statements spent waiting for WAL flushes, µs (sampled: backends waiting on `WALWrite` or
   * `WalSync` on average, times the window, per request). With fsync on, a commit waits for its WAL on the disk.
   */
  readonly wal_flush_wait_us: number;
  /**
   * Connections the side's database accepted per 1,000 requests: a pool that keeps its connections opens none once
   * warm (each new one is a server process starting cold, and its CPU is not in `postgres_backend_cpu_us`).
   */
  readonly connections_opened_per_1000: number;
  readonly wal_by_relation: readonly {
    name: string;
    bytes: number;
    full_page_bytes: number;
    records: number;
  }[];
  readonly statements: readonly {
    query: string;
    toplevel: boolean;
    calls: number;
    time_us: number;
    wal_bytes: number;
  }[];
}

interface MeasuredSide {
  readonly name: 'once' | 'article';
  readonly database: string;
  readonly databaseUrl: string;
  readonly api: BenchService;
  readonly projectorPid?: number;
  readonly apiKey: string;
  readonly invoiceIds: readonly string[];
  /** Resolves once everything the side owes for the requests so far is written (Once: its read models). */
  readonly settle: (payments: number) => Promise<void>;
  readonly windows: WindowCost[];
}

/**
 * `amount` fresh payments over 16 connections; resolves with autocannon's result and when the last answer came
 * (autocannon notices the end of an `amount` run on its once-a-second tick, so its own duration is too coarse).
 */
const load = (side: MeasuredSide, amount: number) => {
  const { invoiceIds } = side;
  return new Promise<{ result: autocannon.Result; lastAnswerAt: number }>((resolve, reject) => {
    let lastAnswerAt = performance.now();
    const instance = autocannon(
      {
        url: side.api.url,
        connections: CONNECTIONS,
        amount,
        requests: [
          {
            method: 'POST',
            setupRequest: (request) => ({
              ...request,
              path: `/invoices/${invoiceIds[Math.floor(Math.random() * invoiceIds.length)] as string}/payments`,
              headers: {
                authorization: `Bearer ${side.apiKey}`,
                'content-type': 'application/json',
                'idempotency-key': randomUUID(),
              },
              body: payment,
            }),
          },
        ],
      },
      (error, result) => (error ? reject(asError(error)) : resolve({ result, lastAnswerAt })),
    );
    instance.on('response', () => {
      lastAnswerAt = performance.now();
    });
  });
};

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * The projector's statements in Once's database (the api sends single statements, never BEGIN/COMMIT): reads of the
 * global order, read-model tables (`<name>_v<version>`), checkpoints and versions.
 */
const isProjectorStatement = (query: string): boolean =>
  /^(BEGIN|COMMIT|ROLLBACK)$|projection_checkpoints|projection_versions|"\w+_v\d+"|m\.matches/.test(query);

const round1 = (value: number) => Math.round(value * 10) / 10;

/** Once's read model has applied `payments` payments (its projector caught up). */
const readModelCaughtUp = (databaseUrl: string) => {
  const client = new pg.Client({ connectionString: databaseUrl });
  const connected = client.connect();
  return {
    wait: async (payments: number) => {
      await connected;
      for (let attempt = 0; attempt < 1200; attempt++) {
        const { rows } = await client.query<{ bench_probe: string }>(
          'SELECT count(*) AS bench_probe FROM payments',
        );
        if (Number(rows[0]?.bench_probe) >= payments) return;
        await sleep(50);
      }
      throw new Error(`the projector did not apply ${payments} payments within a minute`);
    },
    pid: async () => {
      await connected;
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      return rows[0]?.pid as number;
    },
    close: () => client.end(),
  };
};

/** Runs `amount` fresh payments against one side and measures what they cost everywhere. */
const measureWindow = async (
  side: MeasuredSide,
  amount: number,
  context: {
    readonly statistics: ServerStatistics;
    readonly server: EmbeddedPostgresServer;
    readonly databaseUrls: readonly string[];
    readonly excludedPids: readonly number[];
    readonly paymentsSoFar: { count: number };
  },
): Promise<WindowCost> => {
  const { statistics } = context;
  const postgres = await postmasterPid(context.server.dataDirectory);
  const nodePids = [side.api.child.pid as number, ...(side.projectorPid ? [side.projectorPid] : [])];
  const serverBefore = await childProcesses(postgres);
  const cpuBefore = await cpuSnapshot([...nodePids, ...serverBefore]);
  await statistics.resetStatements();
  const walFrom = await statistics.walPosition();
  const flushesFrom = await statistics.walFlushes();
  const sessionsFrom = await statistics.sessions(side.database);
  const flushWaits = await statistics.sampleFlushWaits(side.database);
  const started = performance.now();
  const { result, lastAnswerAt: answered } = await load(side, amount);
  const waitingOnFlushes = await flushWaits.stop();
  context.paymentsSoFar.count += result['2xx'];
  await side.settle(context.paymentsSoFar.count);
  const walTo = await statistics.walPosition();
  const flushesTo = await statistics.walFlushes();
  const sessionsTo = await statistics.sessions(side.database);
  const serverAfter = await childProcesses(postgres);
  const cpuAfter = await cpuSnapshot([...nodePids, ...serverAfter]);
  const backends = new Set(
    (await statistics.backends(side.database)).filter((pid) => !context.excludedPids.includes(pid)),
  );
  const allClientBackends = new Set([
    ...(await statistics.backends('once')),
    ...(await statistics.backends('article_peer')),
    ...(await statistics.backends('postgres')),
  ]);
  const shared = serverAfter.filter((pid) => !allClientBackends.has(pid));
  const statements = (await statistics.statements(side.database)).filter(
    (statement) => !statement.query.includes('bench_probe'),
  );
  const walBytes = await statistics.walBytesBetween(walFrom, walTo);
  const wal = await statistics.walByRelation(walFrom, walTo, context.databaseUrls);
  const requests = result['2xx'];
  if (requests === 0 || result.non2xx > 0)
    throw new Error(`${side.name}: ${result.non2xx} of ${amount} requests were not answered 2xx`);
  const per = (value: number) => round1(value / requests);
  const toplevel = statements.filter((statement) => statement.toplevel);
  const projector = side.projectorPid
    ? toplevel.filter((statement) => isProjectorStatement(statement.query))
    : [];
  const sum = (list: readonly StatementCost[], pick: (statement: StatementCost) => number) =>
    list.reduce((total, statement) => total + pick(statement), 0);
  return {
    requests,
    requests_per_second: Math.round((requests * 1000) / (answered - started)),
    api_cpu_us: per(cpuBetween(cpuBefore, cpuAfter, [side.api.child.pid as number])),
    projector_cpu_us: side.projectorPid ? per(cpuBetween(cpuBefore, cpuAfter, [side.projectorPid])) : 0,
    postgres_backend_cpu_us: per(cpuBetween(cpuBefore, cpuAfter, backends)),
    postgres_shared_cpu_us: per(cpuBetween(cpuBefore, cpuAfter, shared)),
    statement_time_us: per(sum(toplevel, (statement) => statement.timeMicros)),
    round_trips: Math.round((sum(toplevel, (statement) => statement.calls) / requests) * 100) / 100,
    projector_round_trips:
      Math.round((sum(projector, (statement) => statement.calls) / requests) * 100) / 100,
    projector_statement_time_us: per(sum(projector, (statement) => statement.timeMicros)),
    projector_commits:
      Math.round(
        (sum(
          projector.filter((statement) => statement.query === 'COMMIT'),
          (statement) => statement.calls,
        ) /
          requests) *
          1000,
      ) / 1000,
    wal_bytes: per(walBytes),
    wal_flushes: Math.round(((flushesTo - flushesFrom) / requests) * 100) / 100,
    wal_flush_wait_us: per(waitingOnFlushes * (answered - started) * 1000),
    connections_opened_per_1000: round1(((sessionsTo - sessionsFrom) / requests) * 1000),
    wal_by_relation: wal.map((share: WalShare) => ({
      name: share.name,
      bytes: per(share.bytes),
      full_page_bytes: per(share.fullPageBytes),
      records: Math.round((share.records / requests) * 100) / 100,
    })),
    statements: statements.slice(0, 25).map((statement: StatementCost) => ({
      query: statement.query.slice(0, 160),
      toplevel: statement.toplevel,
      calls: Math.round((statement.calls / requests) * 100) / 100,
      time_us: per(statement.timeMicros),
      wal_bytes: per(statement.walBytes),
    })),
  };
};

/** The window whose every number is the median over the rounds (lists come from the median round by WAL). */
const medianWindow = (windows: readonly WindowCost[]): WindowCost => {
  const pick = (select: (window: WindowCost) => number) => round1(median(windows.map(select)));
  const byWal = [...windows].sort((a, b) => a.wal_bytes - b.wal_bytes)[
    Math.floor(windows.length / 2)
  ] as WindowCost;
  return {
    requests: pick((w) => w.requests),
    requests_per_second: pick((w) => w.requests_per_second),
    api_cpu_us: pick((w) => w.api_cpu_us),
    projector_cpu_us: pick((w) => w.projector_cpu_us),
    postgres_backend_cpu_us: pick((w) => w.postgres_backend_cpu_us),
    postgres_shared_cpu_us: pick((w) => w.postgres_shared_cpu_us),
    statement_time_us: pick((w) => w.statement_time_us),
    round_trips: pick((w) => w.round_trips),
    projector_round_trips: pick((w) => w.projector_round_trips),
    projector_statement_time_us: pick((w) => w.projector_statement_time_us),
    projector_commits: median(windows.map((w) => w.projector_commits)),
    wal_bytes: pick((w) => w.wal_bytes),
    wal_flushes: median(windows.map((w) => w.wal_flushes)),
    wal_flush_wait_us: pick((w) => w.wal_flush_wait_us),
    connections_opened_per_1000: median(windows.map((w) => w.connections_opened_per_1000)),
    wal_by_relation: byWal.wal_by_relation,
    statements: byWal.statements,
  };
};

/** What `npm run bench -- write-cost` writes to tools/bench/results/write-cost[.<label>].json. */
export interface WriteCostResult {
  readonly label: string;
  readonly once: WindowCost;
  readonly article: WindowCost;
  readonly rounds: { readonly once: readonly WindowCost[]; readonly article: readonly WindowCost[] };
  readonly requests_per_window: number;
  readonly connections: number;
  readonly pool_size: number;
  readonly invoices: number;
  readonly projector: string;
  readonly load_average: { readonly before: readonly number[]; readonly after: readonly number[] };
  readonly measured_at: string;
}

const argument = (args: readonly string[], name: string): string | undefined => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? undefined : args[index + 1];
};

/**
 * Where a fresh keyed payment's cost goes, Once beside the article peer: windows of fresh payments (16 connections),
 * the sides alternating round by round, each window measuring Node CPU (api; Once's projector as its own process),
 * PostgreSQL CPU (the side's backends, and the shared background processes), statement time and round trips
 * (pg_stat_statements), and WAL (pg_current_wal_lsn before and after; by table and index with pg_walinspect).
 * A Once window ends when its projector has applied the window's payments, so the read models' cost is in it.
 */
export const runWriteCostBench = async (
  args: readonly string[],
  log: (line: string) => void = () => undefined,
): Promise<WriteCostResult> => {
  const amount = Number(argument(args, 'requests') ?? 2000);
  const rounds = Number(argument(args, 'rounds') ?? 3);
  const label = argument(args, 'label') ?? '';
  const loadBefore = loadAverages();
  const server = await startEmbeddedPostgres({ settings: statisticsSettings });
  const statistics = await ServerStatistics.connect(server.connectionString);
  const processes: { child: BenchService['child'] }[] = [];
  const probe = { current: undefined as ReturnType<typeof readModelCaughtUp> | undefined };
  try {
    const onceUrl = await createDatabase(server.connectionString, 'once');
    const article = await createArticleDatabase(server.connectionString, {
      invoices: INVOICES,
      total: INVOICE_TOTAL,
    });
    const onceApi = await startOnceApi({ databaseUrl: onceUrl, externalProjector: true });
    processes.push(onceApi);
    const projector = await startOnceProjector({ databaseUrl: onceUrl });
    processes.push({ child: projector });
    const articleApi = await startArticlePeer({ databaseUrl: article.databaseUrl });
    processes.push(articleApi);
    const apiKey = await createOnceApiKey(onceUrl);
    const invoiceIds = await issueOnceInvoices(onceApi.url, apiKey, {
      count: INVOICES,
      total: INVOICE_TOTAL,
    });
    const caughtUp = readModelCaughtUp(onceUrl);
    probe.current = caughtUp;
    const once: MeasuredSide = {
      name: 'once',
      database: 'once',
      databaseUrl: onceUrl,
      api: onceApi,
      projectorPid: projector.pid as number,
      apiKey,
      invoiceIds,
      settle: (payments) => caughtUp.wait(payments),
      windows: [],
    };
    const peer: MeasuredSide = {
      name: 'article',
      database: 'article_peer',
      databaseUrl: article.databaseUrl,
      api: articleApi,
      apiKey: article.apiKey,
      invoiceIds: article.invoiceIds,
      settle: async () => undefined,
      windows: [],
    };
    const payments = { once: { count: 0 }, article: { count: 0 } };
    const context = {
      statistics,
      server,
      databaseUrls: [onceUrl, article.databaseUrl],
      excludedPids: [await caughtUp.pid()],
    };
    for (const side of [once, peer]) {
      const { result: warmup } = await load(side, amount);
      payments[side.name].count += warmup['2xx'];
      await side.settle(payments[side.name].count);
      log(`warm-up ${side.name}: ${warmup['2xx']} payments`);
    }
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? [once, peer] : [peer, once]) {
        const window = await measureWindow(side, amount, { ...context, paymentsSoFar: payments[side.name] });
        side.windows.push(window);
        log(
          `round ${round + 1} ${side.name}: ${window.requests_per_second}/s, api ${window.api_cpu_us} µs, ` +
            `projector ${window.projector_cpu_us} µs, postgres ${window.postgres_backend_cpu_us} + ` +
            `${window.postgres_shared_cpu_us} µs, statements ${window.statement_time_us} µs in ` +
            `${window.round_trips} round trips, WAL ${window.wal_bytes} B in ${window.wal_flushes} flushes, ` +
            `${window.wal_flush_wait_us} µs waiting for them`,
        );
      }
    }
    const result: WriteCostResult = {
      label,
      once: medianWindow(once.windows),
      article: medianWindow(peer.windows),
      rounds: { once: once.windows, article: peer.windows },
      requests_per_window: amount,
      connections: CONNECTIONS,
      pool_size: POOL_SIZE,
      invoices: INVOICES,
      projector: 'apps/projector as its own process, polling every 50 ms (as the in-process one does)',
      load_average: { before: loadBefore, after: loadAverages() },
      measured_at: new Date().toISOString(),
    };
    const file = join(
      repositoryRoot,
      'tools',
      'bench',
      'results',
      label === '' ? 'write-cost.json' : `write-cost.${label}.json`,
    );
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
    return result;
  } finally {
    await probe.current?.close().catch(() => undefined);
    await Promise.all(processes.map((process) => stopProcess(process.child)));
    await statistics.close();
    await server.stop();
  }
};

const table = (result: WriteCostResult): string => {
  const rows: [string, (cost: WindowCost) => number][] = [
    ['requests/s (window)', (cost) => cost.requests_per_second],
    ['api Node CPU, µs', (cost) => cost.api_cpu_us],
    ['projector Node CPU, µs', (cost) => cost.projector_cpu_us],
    ['PostgreSQL backend CPU, µs', (cost) => cost.postgres_backend_cpu_us],
    ['PostgreSQL shared CPU, µs', (cost) => cost.postgres_shared_cpu_us],
    ['statement time, µs', (cost) => cost.statement_time_us],
    ['round trips', (cost) => cost.round_trips],
    ['… of them the projector’s', (cost) => cost.projector_round_trips],
    ['projector statement time, µs', (cost) => cost.projector_statement_time_us],
    ['projector commits', (cost) => cost.projector_commits],
    ['WAL bytes', (cost) => cost.wal_bytes],
    ['WAL flushes', (cost) => cost.wal_flushes],
    ['waiting for WAL flushes, µs', (cost) => cost.wal_flush_wait_us],
    ['connections opened per 1,000', (cost) => cost.connections_opened_per_1000],
  ];
  return [
    '| per fresh request | Once | article | Once / article |',
    '|---|---|---|---|',
    ...rows.map(([name, pick]) => {
      const ours = pick(result.once);
      const theirs = pick(result.article);
      return `| ${name} | ${ours} | ${theirs} | ${theirs === 0 ? '–' : (ours / theirs).toFixed(2)} |`;
    }),
  ].join('\n');
};

/** The `npm run bench -- write-cost [--requests N] [--rounds R] [--label name]` entry. */
export const run = async (args: readonly string[]): Promise<void> => {
  const result = await runWriteCostBench(args, (line) => console.log(line));
  console.log(table(result));
  for (const side of ['once', 'article'] as const) {
    console.log(`\nWAL by relation, ${side} (bytes per request, of which full-page images):`);
    for (const share of result[side].wal_by_relation.slice(0, 14))
      console.log(`  ${share.name}: ${share.bytes} (${share.full_page_bytes}) in ${share.records} records`);
  }
  console.log(
    `load average before ${result.load_average.before.join(' ')}, after ${result.load_average.after.join(' ')}`,
  );
};
