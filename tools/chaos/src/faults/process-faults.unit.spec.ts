import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { FaultRecord } from '../history/index.js';
import { seededRandom } from '../random/index.js';
import type { SpawnedSystem } from '../spawn/index.js';
import { startProcessFaults } from './process-faults.js';

/** A system whose cluster leader, once killed, is never replaced in time. */
const clusterThatNeverHeals = (failure: Error): SpawnedSystem =>
  ({
    cluster: {
      connectionString: 'postgres://unused',
      synchronous: true,
      killLeaderNode: () => Promise.reject(failure),
      killLeaderPostgres: () => Promise.reject(failure),
    },
  }) as unknown as SpawnedSystem;

/** A system whose cluster leader, once killed, is replaced at once; counts the kills. */
const clusterThatHeals = (): { readonly system: SpawnedSystem; readonly kills: () => number } => {
  let kills = 0;
  const kill = () => {
    kills += 1;
    return Promise.resolve({ killedAt: 1, killed: 'node1', leaderAfter: 'node2', servingAt: 2 });
  };
  return {
    system: {
      cluster: {
        connectionString: 'postgres://unused',
        synchronous: true,
        killLeaderNode: kill,
        killLeaderPostgres: kill,
      },
    } as unknown as SpawnedSystem,
    kills: () => kills,
  };
};

describe('the process fault schedule', () => {
  it('injects no fault after maxFaults', async () => {
    const { system, kills } = clusterThatHeals();
    const records: FaultRecord[] = [];
    const faults = startProcessFaults({
      system,
      kinds: ['kill-leader-node'],
      intervalMs: 1,
      maxFaults: 1,
      random: seededRandom(7),
      record: (fault) => records.push(fault),
    });

    await expect.poll(() => records.length).toBe(1);
    // Long enough for dozens more at this interval, were they not capped.
    await sleep(100);
    await faults.stop();

    expect(kills()).toBe(1);
    expect(records).toMatchObject([{ fault: 'kill-leader-node', target: 'node1', leaderAfter: 'node2' }]);
  });

  it('spreads maxFaults over the workload by its progress, whatever the interval', async () => {
    const { system, kills } = clusterThatHeals();
    let progress = 0;
    const faults = startProcessFaults({
      system,
      kinds: ['kill-leader-node'],
      intervalMs: 1,
      maxFaults: 2,
      progress: () => progress,
      random: seededRandom(7),
      record: () => undefined,
    });

    await sleep(150);
    expect(kills()).toBe(0);
    progress = 0.4;
    await expect.poll(kills).toBe(1);
    await sleep(150);
    expect(kills()).toBe(1);
    progress = 0.7;
    await expect.poll(kills).toBe(2);
    await faults.stop();
  });

  it('rejects failed, and stop, with the error of a kill whose victim never came back', async () => {
    const failure = new Error('no leader in time');
    const records: FaultRecord[] = [];
    const faults = startProcessFaults({
      system: clusterThatNeverHeals(failure),
      kinds: ['kill-leader-node'],
      intervalMs: 10,
      random: seededRandom(7),
      record: (fault) => records.push(fault),
    });

    await expect(faults.failed).rejects.toBe(failure);
    await expect(faults.stop()).rejects.toBe(failure);
    expect(records).toEqual([]);
  });

  it('stops without an error when no fault failed', async () => {
    const faults = startProcessFaults({
      system: clusterThatNeverHeals(new Error('unused')),
      kinds: [],
      intervalMs: 10,
      random: seededRandom(7),
      record: () => undefined,
    });

    await expect(faults.stop()).resolves.toBeUndefined();
  });
});
