import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  checkHistory,
  compareReadModelsWithFold,
  keysInFlightOverHttp,
  readGatewayCharges,
  readKeysInFlight,
  readModelsOverHttp,
  readTenantEvents,
  tallyEffects,
  waitForProjections,
} from './checker/index.js';
import type { SystemFacts } from './checker/index.js';
import { startFaultProxy, startProcessFaults } from './faults/index.js';
import type { FaultProxy, ProcessFaultKind, ProcessFaultSchedule, ProxyFaultRates } from './faults/index.js';
import { openHistory } from './history/index.js';
import type { IntentRecord } from './history/index.js';
import { seededRandom } from './random/index.js';
import { renderHtmlReport, summariseRun } from './report/index.js';
import {
  completerOutageEnvironment,
  completerOutageLeaseMs,
  playCompleterOutage,
} from './scenarios/index.js';
import type { CompleterOutageOptions } from './scenarios/index.js';
import type { RunSummary } from './report/index.js';
import { openClusterDatabase, spawnSystem } from './spawn/index.js';
import type { ClusterDatabase, SpawnedSystem } from './spawn/index.js';
import { createWorkload } from './workload/index.js';

/** A whole chaos run: where it points, how hard it pushes, and where its files go. */
export interface ChaosOptions {
  /**
   * `spawn`: start a deployment here and kill its processes; `cluster`: the same deployment on the HA cluster running
   * in `directory`, whose leader is killed; otherwise the black-box `target` with its `apiKey`.
   */
  readonly system:
    | { readonly kind: 'spawn'; readonly replicas: number }
    | { readonly kind: 'cluster'; readonly replicas: number; readonly directory: string }
    | { readonly kind: 'target'; readonly url: string; readonly apiKey: string };
  readonly intents: number;
  /** Projector processes (spawn and cluster; default 2: the leader and a standby). */
  readonly projectors?: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly duplicateRate: number;
  readonly cardRate: number;
  readonly attemptTimeoutMs: number;
  readonly proxy: Omit<ProxyFaultRates, 'delayMs'>;
  /** Process and gateway faults (spawn only). */
  readonly faultKinds: readonly ProcessFaultKind[];
  readonly faultIntervalMs: number;
  /** Process faults stop after this many (default: they go on until the workload is over). */
  readonly maxFaults?: number;
  /**
   * Spawn only: the projectors start without the completer, and after the workload card payments are left in flight
   * at `charge_requested` while it stays down for longer than key retention (see `playCompleterOutage`).
   */
  readonly completerOutage?: CompleterOutageOptions;
  /**
   * Where `history.jsonl`, `summary.json` and `report.html` are written (a `--cluster` run names them
   * `cluster-sync.*` or `cluster-async.*` after its replication).
   */
  readonly outDirectory: string;
  readonly log: (line: string) => void;
  /** Cluster only: how long a killed leader's cluster may take to heal before the run gives up. */
  readonly recoveryTimeoutMs?: number;
  /** Aborting it (Ctrl-C, SIGTERM) ends the run early: everything it started is stopped, and it rejects. */
  readonly signal?: AbortSignal;
}

const settleTimeoutMs = 180_000;

/** Rejects once `signal` aborts; never settles without one. Nobody waiting on it is no unhandled rejection. */
const untilAborted = (signal: AbortSignal | undefined): Promise<never> => {
  const aborted = new Promise<never>((_resolve, reject) => {
    const interrupt = () => reject(new Error('the run was interrupted'));
    if (signal?.aborted === true) interrupt();
    else signal?.addEventListener('abort', interrupt, { once: true });
  });
  aborted.catch(() => undefined);
  return aborted;
};

/** The run's file names: a cluster run's are named after its replication, so both modes' results sit side by side. */
export const fileNames = (
  cluster: { readonly synchronous: boolean } | undefined,
): { readonly history: string; readonly summary: string; readonly report: string } => {
  if (cluster === undefined)
    return { history: 'history.jsonl', summary: 'summary.json', report: 'report.html' };
  const name = cluster.synchronous ? 'cluster-sync' : 'cluster-async';
  return { history: `${name}.history.jsonl`, summary: `${name}.json`, report: `${name}.html` };
};

const collectSpawnedFacts = async (
  system: SpawnedSystem,
  intents: readonly IntentRecord[],
  log: (line: string) => void,
): Promise<SystemFacts> => {
  const { tenantId, apiKey } = system.credentials;
  const pool = new pg.Pool({ connectionString: system.databaseUrl, max: 4 });
  try {
    if (!(await waitForProjections(pool, settleTimeoutMs))) log('the projections did not catch up in time');
    log('reading the read models over HTTP');
    const readings = await readModelsOverHttp(system.url, apiKey, intents);
    await system.stop({ keepPostgres: true });
    log('reading the log, the key table and the gateway; folding the log again');
    return {
      events: await readTenantEvents(pool, tenantId),
      keysInFlight: await readKeysInFlight(pool, tenantId),
      gatewayCharges: await readGatewayCharges(system.gatewayDatabaseUrl),
      ...readings,
      readModelDifferences: await compareReadModelsWithFold(pool),
    };
  } finally {
    await pool.end();
  }
};

/**
 * Runs the workload through the fault proxy (and, when spawning, kills processes on a schedule), lets the system
 * settle, resends what never got an answer, checks the history and writes the report.
 *
 * @example
 * const summary = await runChaos({ system: { kind: 'spawn', replicas: 2 }, intents: 300, ... });
 * process.exitCode = summary.passed ? 0 : 1;
 */
export const runChaos = async (options: ChaosOptions): Promise<RunSummary> => {
  const { log } = options;
  await mkdir(options.outDirectory, { recursive: true });
  const scratch = await mkdtemp(join(tmpdir(), 'once-chaos-'));
  // PostgreSQL runs as its own user when this runs as root: it must reach its data folder inside.
  await chmod(scratch, 0o755);
  const cluster: ClusterDatabase | undefined =
    options.system.kind === 'cluster'
      ? await openClusterDatabase(options.system.directory, options.recoveryTimeoutMs)
      : undefined;
  const files = fileNames(cluster);
  const history = openHistory(join(options.outDirectory, files.history));
  let system: SpawnedSystem | undefined;
  let proxy: FaultProxy | undefined;
  let faults: ProcessFaultSchedule | undefined;
  const interrupted = untilAborted(options.signal);
  // A wait that a failed fault (its victim never back) or an interruption cuts short: the run then stops everything.
  const unlessStopped = <T>(work: Promise<T>): Promise<T> => {
    // The work cut short goes on until the process exits; its late failure is no unhandled rejection.
    work.catch(() => undefined);
    return Promise.race([work, interrupted, ...(faults ? [faults.failed] : [])]);
  };
  try {
    if (options.system.kind !== 'target') {
      log(
        `starting ${cluster ? "the gateway's PostgreSQL" : 'PostgreSQL'}, ${String(options.system.replicas)} api replicas, ${String(options.projectors ?? 2)} projector(s) and the gateway` +
          (cluster ? ` on the ${cluster.synchronous ? 'synchronous' : 'asynchronous'} cluster` : ''),
      );
      const outage = options.completerOutage;
      system = await spawnSystem({
        replicas: options.system.replicas,
        ...(options.projectors === undefined ? {} : { projectors: options.projectors }),
        directory: scratch,
        ...(outage === undefined
          ? {}
          : {
              completer: false,
              leaseMs: completerOutageLeaseMs,
              environment: completerOutageEnvironment(outage),
            }),
        onProcessEvent: (event, name) => event === 'restarted' && log(`${name} restarted`),
        ...(cluster ? { cluster } : {}),
      });
    }
    const upstream = system?.url ?? (options.system.kind === 'target' ? options.system.url : '');
    const apiKey =
      system?.credentials.apiKey ?? (options.system.kind === 'target' ? options.system.apiKey : '');
    proxy = await startFaultProxy(
      upstream,
      { ...options.proxy, delayMs: options.attemptTimeoutMs + 1_000 },
      seededRandom(options.seed + 1),
    );
    const workload = createWorkload({
      baseUrl: proxy.url,
      apiKey,
      intents: options.intents,
      concurrency: options.concurrency,
      duplicateRate: options.duplicateRate,
      cardRate: options.cardRate,
      attemptTimeoutMs: options.attemptTimeoutMs,
      random: seededRandom(options.seed),
      record: history.record,
      runId: `chaos${String(options.seed)}`,
    });
    const startedAt = Date.now();
    faults =
      system === undefined
        ? undefined
        : startProcessFaults({
            system,
            kinds: options.faultKinds,
            intervalMs: options.faultIntervalMs,
            ...(options.maxFaults === undefined ? {} : { maxFaults: options.maxFaults }),
            progress: () => workload.created() / options.intents,
            random: seededRandom(options.seed + 2),
            record: (fault) => {
              log(`fault: ${fault.fault} → ${fault.target}`);
              history.record(fault);
            },
          });
    const progressLog = setInterval(
      () => log(`${String(workload.created())}/${String(options.intents)} intents`),
      10_000,
    );
    try {
      await unlessStopped(workload.run());
    } finally {
      clearInterval(progressLog);
    }
    log('workload done: stopping the faults and resending what never got an answer');
    await faults?.stop();
    proxy.setEnabled(false);
    const { apis, projectors, gateway } = system ?? { apis: [], projectors: [], gateway: undefined };
    await unlessStopped(
      Promise.all([...apis, ...projectors, ...(gateway ? [gateway] : [])].map((child) => child.whenReady())),
    );
    await unlessStopped(workload.drain(20));
    await proxy.close();
    if (system && options.completerOutage) {
      const pool = new pg.Pool({ connectionString: system.postgres.connectionString, max: 2 });
      try {
        await playCompleterOutage({
          system,
          pool,
          apiKey,
          options: options.completerOutage,
          record: history.record,
          runId: `chaos${String(options.seed)}`,
          log,
        });
      } finally {
        await pool.end();
      }
    }
    const endedAt = Date.now();
    const intents = history.records.filter((record): record is IntentRecord => record.type === 'intent');
    const facts: SystemFacts =
      system === undefined
        ? {
            ...(await readModelsOverHttp(upstream, apiKey, intents)),
            keysInFlight: await keysInFlightOverHttp(
              upstream,
              apiKey,
              intents.map((intent) => intent.key),
            ),
          }
        : await collectSpawnedFacts(system, intents, log);
    const verdicts = checkHistory(history.records, facts);
    const effects = tallyEffects(history.records, facts);
    const summary = summariseRun({
      records: history.records,
      verdicts,
      mode: options.system.kind,
      ...(cluster ? { replication: cluster.synchronous ? 'synchronous' : 'asynchronous' } : {}),
      ...(effects ? { effects } : {}),
      seed: options.seed,
      replicas: options.system.kind === 'target' ? undefined : options.system.replicas,
      startedAt,
      endedAt,
      proxyFaults: proxy.counts(),
    });
    await history.close();
    await writeFile(join(options.outDirectory, files.summary), `${JSON.stringify(summary, null, 2)}\n`);
    await writeFile(join(options.outDirectory, files.report), renderHtmlReport(summary));
    return summary;
  } finally {
    // Whether the run ended or gave up (a fault's victim never back, a readiness wait timed out, an interruption):
    // nothing it started outlives it.
    // Each step runs whatever the one before it did, the processes first.
    await faults?.stop().catch(() => undefined);
    await proxy?.close().catch(() => undefined);
    await system?.stop().catch(() => undefined);
    await system?.postgres.stop().catch(() => undefined);
    await history.close().catch(() => undefined);
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
};
