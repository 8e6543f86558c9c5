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

describe('the process fault schedule', () => {
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
