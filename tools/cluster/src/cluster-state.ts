import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The PostgreSQL nodes a cluster runs, in start order. */
export const nodeNames = ['node1', 'node2', 'node3'] as const;
export type NodeName = (typeof nodeNames)[number];

/** Where one Patroni node listens. */
export interface NodePorts {
  readonly postgres: number;
  /** Patroni's REST API (health checks, `/primary`, `/cluster`). */
  readonly rest: number;
}

/** Every port a cluster uses, all on 127.0.0.1. */
export interface ClusterPorts {
  readonly etcdClient: number;
  readonly etcdPeer: number;
  /** HAProxy's read-write port: always the current leader. */
  readonly primary: number;
  /** HAProxy's read-only port: the replicas. */
  readonly replicas: number;
  readonly nodes: Readonly<Record<NodeName, NodePorts>>;
}

/**
 * What `up` wrote into the data folder so that `status`, `down` and the chaos tool find the cluster: its ports,
 * its superuser password, its replication mode and the process ids it started.
 */
export interface ClusterState {
  readonly directory: string;
  /** `synchronous_mode` of Patroni: a commit is acknowledged only once a standby has it. */
  readonly synchronous: boolean;
  readonly password: string;
  readonly ports: ClusterPorts;
  readonly pids: {
    readonly etcd: number;
    readonly haproxy: number;
    readonly nodes: Readonly<Record<NodeName, number>>;
  };
}

/** The data folder when none is given: `ONCE_CLUSTER_DIR`, else `once-cluster` in the system's temporary folder. */
export const defaultClusterDirectory = (): string =>
  process.env['ONCE_CLUSTER_DIR'] ?? join(tmpdir(), 'once-cluster');

/** Ports from `base` on: etcd, HAProxy, then each node's PostgreSQL and REST API. */
export const portsFrom = (base: number): ClusterPorts => ({
  etcdClient: base,
  etcdPeer: base + 1,
  primary: base + 2,
  replicas: base + 3,
  nodes: {
    node1: { postgres: base + 11, rest: base + 21 },
    node2: { postgres: base + 12, rest: base + 22 },
    node3: { postgres: base + 13, rest: base + 23 },
  },
});

/** Every port of a layout, for the check that they are free. */
export const allPorts = (ports: ClusterPorts): number[] => [
  ports.etcdClient,
  ports.etcdPeer,
  ports.primary,
  ports.replicas,
  ...nodeNames.flatMap((name) => [ports.nodes[name].postgres, ports.nodes[name].rest]),
];

const stateFile = (directory: string): string => join(directory, 'state.json');

/** The state of the cluster in `directory`, or undefined when none was started there. */
export const readClusterState = async (directory: string): Promise<ClusterState | undefined> => {
  try {
    return JSON.parse(await readFile(stateFile(directory), 'utf8')) as ClusterState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** Writes the state (readable by its owner only: it holds the superuser password). */
export const writeClusterState = async (state: ClusterState): Promise<void> => {
  await writeFile(stateFile(state.directory), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
};

/** The connection string through HAProxy's read-write port, as the api and the projector take it. */
export const primaryUrl = (state: ClusterState, database = 'postgres'): string =>
  `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${String(state.ports.primary)}/${database}`;
