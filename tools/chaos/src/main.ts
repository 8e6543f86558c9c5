import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { defaultClusterDirectory } from '@once/cluster';
import { clusterFaultKinds, processFaultKinds } from './faults/index.js';
import { rewriteReport } from './report/index.js';
import { fileNames, runChaos } from './run-chaos.js';
import { killRunningChildren, repositoryRoot } from './spawn/index.js';

const usage = `Runs a workload through injected faults, then checks the whole history for exactly-once.

  npm run chaos -- --spawn [--replicas 3] [--intents 1000] [options]
  npm run chaos -- --cluster [--replicas 2] [--intents 1000] [options]   (after npm run cluster -- up)
  npm run chaos -- --target <url> --api-key <key> [--intents 1000] [options]

--spawn                 start PostgreSQL, the api replicas behind a balancer, 2 projectors and the gateway here,
                        and kill them on a schedule
--cluster               the same, on the HA cluster of npm run cluster (its DATABASE_URL through HAProxy) instead
                        of the embedded PostgreSQL, killing its leader's PostgreSQL or its whole leader node;
                        writes cluster-sync.* or cluster-async.* after the cluster's replication
--cluster-dir DIR       the cluster's data folder (default that of npm run cluster)
--recovery-timeout-seconds N  (cluster) how long a killed leader's cluster may take to serve and replicate again
                        before the run gives up, stops everything it started and exits 1 (default 180)
--target, --api-key     a running deployment, seen only over HTTP (proxy faults only); an admin key
--replicas N            api processes (spawn; default 3)
--projectors N          projector processes (spawn; default 2, the leader and a standby)
--intents N             intents to create (default 1000)
--concurrency N         clients at once (default 24)
--seed N                replays the run's random choices (default: random, printed)
--duplicate-rate R      share of intents sent as 10 concurrent copies (default 0.03)
--card-rate R           share of payments by card (default 0.4)
--attempt-timeout-ms N  the client's timeout per attempt (default 8000); delayed answers come 1 s after it
--reset-before R        share of requests reset before the api sees them (default 0.02)
--drop-after R          share of answers dropped after the api handled the request (default 0.04)
--delay R               share of answers held past the client's timeout (default 0.01)
--fault-interval-ms N   mean pause between process faults (spawn; default 4000)
--max-faults N          exactly N process faults, spread over the workload by its progress (the kth once k/(N+1)
                        of the intents were created) instead of by --fault-interval-ms (default: faults by time
                        until the workload is over)
--faults a,b,…          process faults to inject (spawn; default all): ${processFaultKinds.join(', ')};
                        with --cluster (default both): ${clusterFaultKinds.join(', ')}
--completer-outage      (spawn) after the workload, leave card payments in flight at charge_requested (half
                        uncharged, half charged with the answer lost) while the completer is down for three key
                        retentions, then bring it back and retry late: no reservation left, no second charge
--outage-payments N     card payments the outage leaves in flight (default 6)
--key-retention-seconds N  key retention of every process during --completer-outage (default 3)
--out DIR               where history.jsonl, summary.json and report.html go (default tools/chaos/results)
--rewrite-report DIR    write a finished run's summary.json and report.html again from its history, and stop

Exit status 0 only when every invariant holds. A run that gives up (a killed process or cluster not back in time)
or is interrupted (Ctrl-C, SIGTERM, SIGHUP) stops every process it started and exits 1.`;

const { values } = parseArgs({
  options: {
    spawn: { type: 'boolean' },
    cluster: { type: 'boolean' },
    'cluster-dir': { type: 'string' },
    'recovery-timeout-seconds': { type: 'string' },
    target: { type: 'string' },
    'api-key': { type: 'string' },
    replicas: { type: 'string' },
    projectors: { type: 'string' },
    intents: { type: 'string' },
    concurrency: { type: 'string' },
    seed: { type: 'string' },
    'duplicate-rate': { type: 'string' },
    'card-rate': { type: 'string' },
    'attempt-timeout-ms': { type: 'string' },
    'reset-before': { type: 'string' },
    'drop-after': { type: 'string' },
    delay: { type: 'string' },
    'fault-interval-ms': { type: 'string' },
    'max-faults': { type: 'string' },
    faults: { type: 'string' },
    'completer-outage': { type: 'boolean' },
    'outage-payments': { type: 'string' },
    'key-retention-seconds': { type: 'string' },
    out: { type: 'string' },
    'rewrite-report': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
if (values['rewrite-report'] !== undefined) {
  const rewritten = await rewriteReport(values['rewrite-report']);
  console.log(
    `rewrote ${join(values['rewrite-report'], 'report.html')} (${rewritten.passed ? 'passed' : 'failed'})`,
  );
  process.exit(0);
}

const share = z.coerce.number().min(0).max(1);
const parsed = z
  .object({
    spawn: z.boolean().default(false),
    cluster: z.boolean().default(false),
    'cluster-dir': z.string().min(1).default(defaultClusterDirectory()),
    'recovery-timeout-seconds': z.coerce.number().int().min(1).max(3_600).default(180),
    target: z.url().optional(),
    'api-key': z.string().min(1).optional(),
    replicas: z.coerce.number().int().min(1).max(16).default(3),
    projectors: z.coerce.number().int().min(1).max(8).default(2),
    intents: z.coerce.number().int().min(1).max(1_000_000).default(1000),
    concurrency: z.coerce.number().int().min(1).max(1000).default(24),
    seed: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 31)
      .default(() => randomInt(2 ** 31)),
    'duplicate-rate': share.default(0.03),
    'card-rate': share.default(0.4),
    'attempt-timeout-ms': z.coerce.number().int().min(100).max(120_000).default(8_000),
    'reset-before': share.default(0.02),
    'drop-after': share.default(0.04),
    delay: share.default(0.01),
    'fault-interval-ms': z.coerce.number().int().min(100).max(600_000).default(4_000),
    'max-faults': z.coerce.number().int().min(0).max(1_000_000).optional(),
    faults: z
      .string()
      .default(values.cluster === true ? clusterFaultKinds.join(',') : processFaultKinds.join(','))
      .transform((text) => text.split(',').filter((kind) => kind !== ''))
      .pipe(z.array(z.enum([...processFaultKinds, ...clusterFaultKinds]))),
    'completer-outage': z.boolean().default(false),
    'outage-payments': z.coerce.number().int().min(1).max(1_000).default(6),
    'key-retention-seconds': z.coerce.number().int().min(3).max(3_600).default(3),
    out: z
      .string()
      .min(1)
      .default(join(repositoryRoot, 'tools', 'chaos', 'results')),
  })
  .refine(
    (input) => [input.spawn, input.cluster, input.target !== undefined].filter(Boolean).length === 1,
    'give one of --spawn, --cluster or --target',
  )
  .refine((input) => input.target === undefined || input['api-key'] !== undefined, '--target needs --api-key')
  .refine((input) => input.spawn || !input['completer-outage'], '--completer-outage needs --spawn')
  .safeParse(values);
if (!parsed.success) {
  console.error(`${z.prettifyError(parsed.error)}\n\n${usage}`);
  process.exit(2);
}
const input = parsed.data;

const started = Date.now();
const log = (line: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);
log(`seed ${String(input.seed)} (rerun with --seed ${String(input.seed)})`);
// Ctrl-C, SIGTERM or a closed terminal ends the run and stops what it started, in order. Whatever an exit still
// finds running (a process.exit anywhere, before that stop reached it) gets SIGKILL on the way out.
process.on('exit', killRunningChildren);
const interruption = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    log(
      interruption.signal.aborted
        ? `${signal}: already stopping everything the run started`
        : `${signal}: stopping everything the run started`,
    );
    interruption.abort();
  });
}
const summary = await runChaos({
  system:
    input.target !== undefined
      ? { kind: 'target', url: input.target, apiKey: input['api-key'] as string }
      : input.cluster
        ? { kind: 'cluster', replicas: input.replicas, directory: input['cluster-dir'] }
        : { kind: 'spawn', replicas: input.replicas },
  intents: input.intents,
  projectors: input.projectors,
  concurrency: input.concurrency,
  seed: input.seed,
  duplicateRate: input['duplicate-rate'],
  cardRate: input['card-rate'],
  attemptTimeoutMs: input['attempt-timeout-ms'],
  proxy: { resetBefore: input['reset-before'], dropAfter: input['drop-after'], delay: input.delay },
  faultKinds: input.faults,
  faultIntervalMs: input['fault-interval-ms'],
  ...(input['max-faults'] === undefined ? {} : { maxFaults: input['max-faults'] }),
  ...(input['completer-outage']
    ? {
        completerOutage: {
          payments: input['outage-payments'],
          retentionSeconds: input['key-retention-seconds'],
        },
      }
    : {}),
  outDirectory: input.out,
  log,
  recoveryTimeoutMs: input['recovery-timeout-seconds'] * 1_000,
  signal: interruption.signal,
}).catch((error: unknown) => {
  console.error(`\nGAVE UP: ${error instanceof Error ? error.message : String(error)}`);
  console.error('every process the run started was stopped; no verdict');
  process.exit(1);
});

console.log('');
for (const verdict of summary.verdicts) {
  console.log(
    `${verdict.status.toUpperCase().padEnd(7)} ${verdict.invariant.padEnd(32)} checked ${String(verdict.checked).padStart(6)}  violations ${String(verdict.violationCount)}`,
  );
  for (const violation of verdict.violations) console.log(`          ${violation}`);
}
console.log(
  `\n${String(summary.intents)} intents, ${String(summary.attempts)} attempts in ${String(summary.durationSeconds)} s; ` +
    `faults: ${JSON.stringify({ ...summary.processFaults, ...summary.proxyFaults })}`,
);
if (summary.effects) {
  console.log(
    `effects: ${String(summary.effects.lost)} acknowledged lost, ${String(summary.effects.doubled)} doubled, ${String(summary.effects.orphaned)} without an intent`,
  );
}
for (const kill of summary.leaderKills ?? []) {
  console.log(
    `${kill.fault} at ${String(kill.at)} s: ${kill.killed} → ${kill.leaderAfter}${kill.failover ? ' (failover)' : ' (recovered in place)'}, ` +
      `serving again after ${String(kill.servingAfterSeconds)} s, ${String(kill.secondsWithout2xx)} s without a 2xx`,
  );
}
if (summary.failovers) {
  console.log(
    `failovers: ${String(summary.failovers.count)}, seconds without a 2xx per failover: ${summary.failovers.secondsWithout2xx.join(', ')} ` +
      `(median ${String(summary.failovers.medianSecondsWithout2xx)}, max ${String(summary.failovers.maxSecondsWithout2xx)})`,
  );
}
const files = fileNames(summary.replication && { synchronous: summary.replication === 'synchronous' });
console.log(`report: ${join(input.out, files.report)}  summary: ${join(input.out, files.summary)}`);
console.log(summary.passed ? 'PASSED: every invariant holds' : 'FAILED');
process.exit(summary.passed ? 0 : 1);
