import { loadavg } from 'node:os';
import type { EffectTally, Verdict } from '../checker/index.js';
import type { AttemptRecord, FaultRecord, HistoryRecord, IntentRecord } from '../history/index.js';

/** The JSON summary of a run (also what the HTML report draws). */
/** One kill of the HA cluster's leader, and what it cost. */
export interface LeaderKillSummary {
  /** Seconds since the run's start. */
  readonly at: number;
  readonly fault: string;
  readonly killed: string;
  readonly leaderAfter: string;
  /** True when another node leads afterwards (Patroni may instead restart a killed PostgreSQL in place). */
  readonly failover: boolean;
  /** Until a leader served through HAProxy again. */
  readonly servingAfterSeconds: number;
  /** The longest stretch without any 2xx answer after the kill. */
  readonly secondsWithout2xx: number;
}

export interface RunSummary {
  readonly mode: 'spawn' | 'target' | 'cluster';
  /** The HA cluster's replication (`--cluster` runs). */
  readonly replication?: 'synchronous' | 'asynchronous';
  /**
   * Where the streams lived when not in PostgreSQL (`--eventstoredb` runs): the wire-level EventStoreDB test server
   * in the chaos process, or the EventStoreDB of `--eventstore-url`.
   */
  readonly streams?: 'eventstoredb-wire-test-server' | 'eventstoredb';
  readonly seed: number;
  readonly replicas: number | undefined;
  readonly passed: boolean;
  readonly startedAt: string;
  readonly durationSeconds: number;
  readonly intents: number;
  readonly duplicatedIntents: number;
  readonly outcomes: Readonly<Record<IntentRecord['outcome'], number>>;
  readonly attempts: number;
  readonly attemptsByStatus: Readonly<Record<string, number>>;
  readonly replayedAnswers: number;
  readonly latencyMs: {
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
  };
  /** Attempts per intent beyond the first (all copies counted): how many intents needed 0, 1, 2, … retries. */
  readonly retriesPerIntent: Readonly<Record<string, number>>;
  readonly proxyFaults: Readonly<Record<string, number>>;
  readonly processFaults: Readonly<Record<string, number>>;
  readonly faults: readonly FaultRecord[];
  /**
   * What each kind of process fault cost: the longest stretch without any 2xx answer after the fault, until the next
   * fault or a minute later (seconds; median and worst over its occurrences). Killing one replica of several should cost ~0; PostgreSQL costs
   * its restart and crash recovery.
   */
  readonly faultImpact: Readonly<
    Record<
      string,
      { readonly count: number; readonly medianGapSeconds: number; readonly maxGapSeconds: number }
    >
  >;
  /** Answers per second (all statuses, and 2xx) from the run's start. */
  readonly throughput: readonly {
    readonly second: number;
    readonly answers: number;
    readonly successes: number;
  }[];
  /** Every kill of the cluster's leader (`--cluster` runs), in order. */
  readonly leaderKills?: readonly LeaderKillSummary[];
  /** The kills after which another node led: how many, and the seconds without a 2xx each cost. */
  readonly failovers?: {
    readonly count: number;
    readonly secondsWithout2xx: readonly number[];
    readonly medianSecondsWithout2xx: number;
    readonly maxSecondsWithout2xx: number;
  };
  /** Acknowledged effects missing from the log, effects taken twice, effects no intent asked for (counts). */
  readonly effects?: { readonly lost: number; readonly doubled: number; readonly orphaned: number };
  readonly verdicts: readonly Verdict[];
  readonly machine: { readonly loadAverage: readonly number[] };
}

const percentile = (sorted: readonly number[], share: number): number =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] as number);

const impactWindowMs = 60_000;

/** The longest stretch without a 2xx answer after a fault: until the next fault, a minute later or the run's end. */
const longestGapAfter = (
  at: number,
  faultStarts: readonly number[],
  successTimes: readonly number[],
  endedAt: number,
): number => {
  // Until the next fault at the latest, so one fault's cost is never another's.
  const next = faultStarts.find((start) => start > at) ?? Number.POSITIVE_INFINITY;
  const end = Math.min(at + impactWindowMs, next, endedAt);
  const points = [at, ...successTimes.filter((time) => time > at && time < end), end];
  let longest = 0;
  for (let index = 1; index < points.length; index += 1) {
    longest = Math.max(longest, (points[index] as number) - (points[index - 1] as number));
  }
  return longest;
};

const tenths = (milliseconds: number): number => Math.round(milliseconds / 100) / 10;

/** The longest stretch without a 2xx answer in the minute after each fault, by kind of fault. */
const faultImpact = (
  faults: readonly FaultRecord[],
  successTimes: readonly number[],
  endedAt: number,
): RunSummary['faultImpact'] => {
  const gaps = new Map<string, number[]>();
  const starts = faults.map((fault) => fault.at).sort((a, b) => a - b);
  for (const fault of faults) {
    const longest = longestGapAfter(fault.at, starts, successTimes, endedAt);
    gaps.set(fault.fault, [...(gaps.get(fault.fault) ?? []), longest / 1000]);
  }
  return Object.fromEntries(
    [...gaps].map(([fault, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return [
        fault,
        {
          count: values.length,
          medianGapSeconds: Math.round(percentile(sorted, 0.5) * 10) / 10,
          maxGapSeconds: Math.round((sorted.at(-1) ?? 0) * 10) / 10,
        },
      ];
    }),
  );
};

/** The cluster's leader kills (faults that name the leader after them) and the failovers among them. */
const leaderKillsOf = (
  faults: readonly FaultRecord[],
  successTimes: readonly number[],
  startedAt: number,
  endedAt: number,
): Pick<RunSummary, 'leaderKills' | 'failovers'> => {
  const starts = faults.map((fault) => fault.at).sort((a, b) => a - b);
  const leaderKills = faults
    .filter((fault) => fault.leaderAfter !== undefined)
    .sort((a, b) => a.at - b.at)
    .map((fault) => ({
      at: tenths(fault.at - startedAt),
      fault: fault.fault,
      killed: fault.target,
      leaderAfter: fault.leaderAfter as string,
      failover: fault.leaderAfter !== fault.target,
      servingAfterSeconds: tenths(fault.servingAfterMs ?? 0),
      secondsWithout2xx: tenths(longestGapAfter(fault.at, starts, successTimes, endedAt)),
    }));
  if (leaderKills.length === 0) return {};
  const gaps = leaderKills.filter((kill) => kill.failover).map((kill) => kill.secondsWithout2xx);
  const sorted = [...gaps].sort((a, b) => a - b);
  return {
    leaderKills,
    failovers: {
      count: gaps.length,
      secondsWithout2xx: gaps,
      medianSecondsWithout2xx: percentile(sorted, 0.5),
      maxSecondsWithout2xx: sorted.at(-1) ?? 0,
    },
  };
};

const statusClass = (status: AttemptRecord['status']): string =>
  typeof status === 'number' ? `${String(Math.floor(status / 100))}xx` : status;

const tally = (values: readonly string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

/**
 * Sums a run up from its history and verdicts.
 *
 * @example
 * const summary = summariseRun({ records, verdicts, mode: 'spawn', seed, replicas: 3, startedAt, proxyFaults });
 */
export const summariseRun = (input: {
  readonly records: readonly HistoryRecord[];
  readonly verdicts: readonly Verdict[];
  readonly mode: RunSummary['mode'];
  readonly seed: number;
  readonly replicas: number | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly proxyFaults: Readonly<Record<string, number>>;
  readonly replication?: RunSummary['replication'];
  readonly streams?: RunSummary['streams'];
  readonly effects?: EffectTally;
}): RunSummary => {
  const attempts = input.records.filter((record): record is AttemptRecord => record.type === 'attempt');
  const intents = input.records.filter((record): record is IntentRecord => record.type === 'intent');
  const faults = input.records.filter((record): record is FaultRecord => record.type === 'fault');
  const latencies = attempts
    .filter((attempt) => typeof attempt.status === 'number')
    .map((attempt) => attempt.receivedAt - attempt.sentAt)
    .sort((a, b) => a - b);
  const attemptsPerKey = tally(attempts.map((attempt) => attempt.key));
  const retries = intents.map((intent) => {
    const retried = (attemptsPerKey[intent.key] ?? intent.copies) - intent.copies;
    return retried >= 10 ? '10+' : String(Math.max(0, retried));
  });
  const seconds = Math.max(1, Math.ceil((input.endedAt - input.startedAt) / 1000));
  const throughput = Array.from({ length: seconds }, (_, second) => ({ second, answers: 0, successes: 0 }));
  for (const attempt of attempts) {
    const bucket = throughput[Math.floor((attempt.receivedAt - input.startedAt) / 1000)];
    if (bucket === undefined || typeof attempt.status !== 'number') continue;
    bucket.answers += 1;
    if (attempt.status >= 200 && attempt.status < 300) bucket.successes += 1;
  }
  const outcomes = tally(intents.map((intent) => intent.outcome));
  const successTimes = attempts
    .filter((attempt) => typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300)
    .map((attempt) => attempt.receivedAt)
    .sort((a, b) => a - b);
  return {
    mode: input.mode,
    ...(input.replication ? { replication: input.replication } : {}),
    ...(input.streams ? { streams: input.streams } : {}),
    seed: input.seed,
    replicas: input.replicas,
    passed: input.verdicts.every((verdict) => verdict.status !== 'fail'),
    startedAt: new Date(input.startedAt).toISOString(),
    durationSeconds: Math.round((input.endedAt - input.startedAt) / 100) / 10,
    intents: intents.length,
    duplicatedIntents: intents.filter((intent) => intent.copies > 1).length,
    outcomes: {
      succeeded: outcomes['succeeded'] ?? 0,
      rejected: outcomes['rejected'] ?? 0,
      'gave-up': outcomes['gave-up'] ?? 0,
    },
    attempts: attempts.length,
    attemptsByStatus: tally(attempts.map((attempt) => statusClass(attempt.status))),
    replayedAnswers: attempts.filter((attempt) => attempt.replayed === true).length,
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p90: percentile(latencies, 0.9),
      p99: percentile(latencies, 0.99),
      max: latencies.at(-1) ?? 0,
    },
    retriesPerIntent: tally(retries),
    proxyFaults: input.proxyFaults,
    processFaults: tally(faults.map((fault) => fault.fault)),
    faults: faults.map((fault) => ({ ...fault, at: fault.at - input.startedAt })),
    faultImpact: faultImpact(faults, successTimes, input.endedAt),
    throughput,
    ...leaderKillsOf(faults, successTimes, input.startedAt, input.endedAt),
    ...(input.effects
      ? {
          effects: {
            lost: input.effects.lost.length,
            doubled: input.effects.doubled.length,
            orphaned: input.effects.orphaned.length,
          },
        }
      : {}),
    verdicts: input.verdicts,
    machine: { loadAverage: loadavg().map((load) => Math.round(load * 100) / 100) },
  };
};
