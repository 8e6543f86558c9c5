import { describe, expect, it } from 'vitest';
import type { AttemptRecord, FaultRecord, HistoryRecord } from '../history/index.js';
import { summariseRun } from './run-summary.js';

const startedAt = 1_000_000;

const success = (receivedAt: number): AttemptRecord => ({
  type: 'attempt',
  intent: 'i1',
  key: `k${String(receivedAt)}`,
  attempt: 1,
  sentAt: receivedAt - 10,
  receivedAt,
  status: 201,
});

const leaderKill = (at: number, fault: string, target: string, leaderAfter: string): FaultRecord => ({
  type: 'fault',
  at,
  fault,
  target,
  leaderAfter,
  servingAfterMs: 4_000,
});

const summarise = (records: readonly HistoryRecord[]) =>
  summariseRun({
    records,
    verdicts: [],
    mode: 'cluster',
    seed: 1,
    replicas: 2,
    startedAt,
    endedAt: startedAt + 100_000,
    proxyFaults: {},
  });

describe('summariseRun with leader kills', () => {
  it('counts a kill as a failover only when another node leads, with the seconds without a 2xx after it', () => {
    // A 2xx every half second, but for 12.5 s after the first kill, 3 s after the second and 31 s after the third.
    const silent = [
      [10_000, 22_500],
      [40_000, 43_000],
      [60_000, 91_000],
    ];
    const successes = Array.from({ length: 200 }, (_, index) => index * 500)
      .filter((offset) => !silent.some(([from, to]) => offset > (from as number) && offset < (to as number)))
      .map((offset) => success(startedAt + offset));
    const summary = summarise([
      ...successes,
      leaderKill(startedAt + 10_000, 'kill-leader-node', 'node1', 'node2'),
      leaderKill(startedAt + 40_000, 'kill-leader-postgres', 'node2', 'node2'),
      leaderKill(startedAt + 60_000, 'kill-leader-node', 'node2', 'node3'),
    ]);
    expect(summary.leaderKills?.map((kill) => [kill.at, kill.failover, kill.secondsWithout2xx])).toEqual([
      [10, true, 12.5],
      [40, false, 3],
      [60, true, 31],
    ]);
    expect(summary.failovers).toEqual({
      count: 2,
      secondsWithout2xx: [12.5, 31],
      medianSecondsWithout2xx: 31,
      maxSecondsWithout2xx: 31,
    });
  });

  it('reports no leader kills for a run without a cluster', () => {
    const summary = summarise([success(startedAt + 1_000)]);
    expect(summary.leaderKills).toBeUndefined();
    expect(summary.failovers).toBeUndefined();
  });
});
