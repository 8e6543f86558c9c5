import {
  killNode,
  killNodePostgres,
  primaryUrl,
  readClusterState,
  startNode,
  waitForHealthyCluster,
  waitForLeader,
  waitForNewLeader,
} from '@once/cluster';
import type { ClusterState, NodeName } from '@once/cluster';

/** What killing the leader led to: who was killed, who leads afterwards, and when a leader served again. */
export interface LeaderKill {
  readonly killedAt: number;
  readonly killed: NodeName;
  readonly leaderAfter: NodeName;
  /** When a connection through HAProxy's read-write port reached a leader again (ms since the epoch). */
  readonly servingAt: number;
}

/** The HA cluster of `npm run cluster -- up`, as the chaos run uses it: its address and its leader's deaths. */
export interface ClusterDatabase {
  /** HAProxy's read-write port: the api, the projector and the checker connect here. */
  readonly connectionString: string;
  readonly synchronous: boolean;
  /**
   * SIGKILL to the leader's PostgreSQL only; Patroni on that node restarts it, or another node takes over. Resolves
   * when every node runs and replicates again; undefined, killing nothing, when `signal` aborted while it waited
   * for a leader to kill.
   */
  killLeaderPostgres(signal?: AbortSignal): Promise<LeaderKill | undefined>;
  /**
   * SIGKILL to the leader's Patroni and PostgreSQL together; a replica is promoted once the leader key expires, and
   * the killed node is started again and rejoins as a replica. Resolves when every node runs and replicates again
   * (undefined as above).
   */
  killLeaderNode(signal?: AbortSignal): Promise<LeaderKill | undefined>;
}

/** How long a kill may take to heal (a leader serving again, every node replicating) before the run gives up. */
export const defaultRecoveryTimeoutMs = 180_000;

/**
 * Connects to the cluster running in `directory`; throws when there is none or it is not healthy. A kill whose
 * cluster does not heal within `recoveryTimeoutMs` rejects.
 */
export const openClusterDatabase = async (
  directory: string,
  recoveryTimeoutMs = defaultRecoveryTimeoutMs,
): Promise<ClusterDatabase> => {
  const found = await readClusterState(directory);
  if (found === undefined) {
    throw new Error(`no cluster in ${directory}: start one with npm run cluster -- up`);
  }
  let state: ClusterState = found;
  await waitForHealthyCluster(state, 30_000);
  // Patroni restarts a crashed leader's PostgreSQL as a replica and promotes it again: between two kills the cluster
  // can be healthy and still be a moment without a leader.
  const leaderNow = (): Promise<NodeName> => waitForLeader(state, recoveryTimeoutMs);
  return {
    connectionString: primaryUrl(state),
    synchronous: state.synchronous,
    killLeaderPostgres: async (signal) => {
      const killed = await leaderNow();
      if (signal?.aborted === true) return undefined;
      const killedAt = Date.now();
      await killNodePostgres(state, killed);
      const leaderAfter = await waitForLeader(state, recoveryTimeoutMs);
      const servingAt = Date.now();
      await waitForHealthyCluster(state, recoveryTimeoutMs);
      return { killedAt, killed, leaderAfter, servingAt };
    },
    killLeaderNode: async (signal) => {
      const killed = await leaderNow();
      if (signal?.aborted === true) return undefined;
      const killedAt = Date.now();
      await killNode(state, killed);
      const serving = async () => {
        await waitForNewLeader(state, killed, recoveryTimeoutMs);
        const leaderAfter = await waitForLeader(state, recoveryTimeoutMs);
        return { leaderAfter, servingAt: Date.now() };
      };
      // The killed node is started again even when no other took over in time: a run that gives up leaves the
      // cluster with all its nodes for the next.
      const { leaderAfter, servingAt } = await serving().finally(async () => {
        state = await startNode(state, killed);
      });
      await waitForHealthyCluster(state, recoveryTimeoutMs);
      return { killedAt, killed, leaderAfter, servingAt };
    },
  };
};
