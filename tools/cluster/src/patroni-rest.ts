import { nodeNames } from './cluster-state.js';
import type { ClusterState, NodeName } from './cluster-state.js';

/** One member as Patroni's `GET /cluster` shows it. */
export interface ClusterMember {
  readonly name: NodeName;
  /** `leader`, `sync_standby` or `replica`. */
  readonly role: string;
  /** `running`, `streaming`, `starting`, `stopped`, `crashed`, … */
  readonly state: string;
  readonly timeline?: number;
  /** Bytes behind the leader (replicas). */
  readonly lag?: number | string;
}

const memberIsUp = (member: ClusterMember): boolean =>
  member.state === 'running' || member.state === 'streaming';

/**
 * The members as the first node that answers sees them (each node reads the same view from etcd); empty when no
 * node's REST API answers.
 */
export const readMembers = async (state: ClusterState): Promise<ClusterMember[]> => {
  for (const name of nodeNames) {
    try {
      const response = await fetch(`http://127.0.0.1:${String(state.ports.nodes[name].rest)}/cluster`, {
        signal: AbortSignal.timeout(1_000),
      });
      if (!response.ok) continue;
      const body = (await response.json()) as { members?: ClusterMember[] };
      return body.members ?? [];
    } catch {
      // This node is down; ask the next.
    }
  }
  return [];
};

/** The running leader's name, undefined while there is none. */
export const runningLeader = (members: readonly ClusterMember[]): NodeName | undefined =>
  members.find((member) => member.role === 'leader' && memberIsUp(member))?.name;

/**
 * True when all three nodes are up, one leads and the others replicate; in synchronous mode one of them must be
 * the synchronous standby.
 */
export const isHealthy = (state: ClusterState, members: readonly ClusterMember[]): boolean =>
  nodeNames.every((name) => members.some((member) => member.name === name && memberIsUp(member))) &&
  runningLeader(members) !== undefined &&
  (!state.synchronous || members.some((member) => member.role === 'sync_standby' && memberIsUp(member)));
