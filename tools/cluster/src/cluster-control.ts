import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  haproxyConfiguration,
  nodeDataDirectory,
  nodeDirectory,
  patroniConfiguration,
} from './cluster-config.js';
import { ClusterPrerequisiteError, ensurePackages, postgresUser } from './cluster-packages.js';
import {
  allPorts,
  nodeNames,
  portsFrom,
  primaryUrl,
  readClusterState,
  writeClusterState,
} from './cluster-state.js';
import type { ClusterState, NodeName } from './cluster-state.js';
import { isAlive, postmasterPid, startDetached, stopProcess, waitForExit } from './detached-process.js';
import { isHealthy, readMembers, runningLeader } from './patroni-rest.js';
import type { ClusterMember } from './patroni-rest.js';

export interface ClusterUpOptions {
  readonly directory: string;
  /** Patroni's `synchronous_mode` (the default); false replicates asynchronously. */
  readonly synchronous: boolean;
  /** The first of the cluster's ports (see `portsFrom`). */
  readonly basePort: number;
  readonly log: (line: string) => void;
  readonly timeoutMs?: number;
}

const isPortFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

const waitFor = async (what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
};

const etcdHealthy = async (state: ClusterState): Promise<boolean> => {
  try {
    const response = await fetch(`http://127.0.0.1:${String(state.ports.etcdClient)}/health`, {
      signal: AbortSignal.timeout(1_000),
    });
    return response.ok;
  } catch {
    return false;
  }
};

/** True when a connection through HAProxy's read-write port reaches a PostgreSQL that is not in recovery. */
const primaryReachable = async (state: ClusterState): Promise<boolean> => {
  const client = new pg.Client({ connectionString: primaryUrl(state), connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ recovering: boolean }>('SELECT pg_is_in_recovery() AS recovering');
    return rows[0]?.recovering === false;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
};

const startEtcd = (state: ClusterState): number => {
  const { etcdClient, etcdPeer } = state.ports;
  const peer = `http://127.0.0.1:${String(etcdPeer)}`;
  const client = `http://127.0.0.1:${String(etcdClient)}`;
  return startDetached(
    '/usr/bin/etcd',
    [
      '--name=once',
      `--data-dir=${join(state.directory, 'etcd')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=once=${peer}`,
      '--initial-cluster-state=new',
    ],
    { logFile: join(state.directory, 'etcd.log'), cwd: state.directory },
  );
};

const launchPatroni = async (state: ClusterState, name: NodeName): Promise<number> => {
  const folder = nodeDirectory(state.directory, name);
  const user = await postgresUser();
  return startDetached('/usr/bin/patroni', [join(folder, 'patroni.yml')], {
    logFile: join(folder, 'patroni.log'),
    cwd: folder,
    ...(user === undefined ? {} : { user }),
    env: { ...process.env, HOME: folder },
  });
};

const prepareNode = async (state: ClusterState, name: NodeName): Promise<void> => {
  const folder = nodeDirectory(state.directory, name);
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, 'patroni.yml'),
    `${JSON.stringify(patroniConfiguration(state, name), null, 2)}\n`,
    {
      mode: 0o600,
    },
  );
  const user = await postgresUser();
  if (user !== undefined) {
    await chown(folder, user.uid, user.gid);
    await chown(join(folder, 'patroni.yml'), user.uid, user.gid);
  }
  await chmod(folder, 0o700);
};

/**
 * Starts etcd, three Patroni nodes and HAProxy in `directory` (installing the Debian packages first when they are
 * missing), waits until the leader answers through HAProxy and every replica streams, and returns the state it
 * wrote there.
 *
 * @example
 * const state = await clusterUp({ directory: '/tmp/once-cluster', synchronous: true, basePort: 27400, log });
 * console.log(primaryUrl(state));
 */
export const clusterUp = async (options: ClusterUpOptions): Promise<ClusterState> => {
  const { directory, log } = options;
  const existing = await readClusterState(directory);
  if (existing !== undefined && isAlive(existing.pids.etcd)) {
    throw new ClusterPrerequisiteError(
      `a cluster already runs in ${directory} (npm run cluster -- down first)`,
    );
  }
  await ensurePackages(log);
  const ports = portsFrom(options.basePort);
  const taken: number[] = [];
  for (const port of allPorts(ports)) if (!(await isPortFree(port))) taken.push(port);
  if (taken.length > 0) {
    throw new ClusterPrerequisiteError(
      `ports ${taken.join(', ')} on 127.0.0.1 are in use; choose others with --base-port`,
    );
  }
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  // PostgreSQL runs as its own user when this runs as root: it must reach its node's folder inside.
  await chmod(directory, 0o755);
  const draft: ClusterState = {
    directory,
    synchronous: options.synchronous,
    password: randomBytes(18).toString('base64url'),
    ports,
    pids: { etcd: 0, haproxy: 0, nodes: { node1: 0, node2: 0, node3: 0 } },
  };
  const timeoutMs = options.timeoutMs ?? 120_000;
  log(`etcd on 127.0.0.1:${String(ports.etcdClient)}`);
  let state: ClusterState = { ...draft, pids: { ...draft.pids, etcd: startEtcd(draft) } };
  await writeClusterState(state);
  await waitFor('etcd', timeoutMs, () => etcdHealthy(state));
  const nodes = { ...state.pids.nodes };
  for (const name of nodeNames) {
    await prepareNode(state, name);
    log(
      `${name}: PostgreSQL on 127.0.0.1:${String(ports.nodes[name].postgres)}, Patroni on :${String(ports.nodes[name].rest)}`,
    );
    nodes[name] = await launchPatroni(state, name);
    state = { ...state, pids: { ...state.pids, nodes: { ...nodes } } };
    await writeClusterState(state);
  }
  await writeFile(join(directory, 'haproxy.cfg'), haproxyConfiguration(state));
  log(`HAProxy: read-write on 127.0.0.1:${String(ports.primary)}, read-only on :${String(ports.replicas)}`);
  const haproxy = startDetached('/usr/sbin/haproxy', ['-db', '-f', join(directory, 'haproxy.cfg')], {
    logFile: join(directory, 'haproxy.log'),
    cwd: directory,
  });
  state = { ...state, pids: { ...state.pids, haproxy } };
  await writeClusterState(state);
  await waitForHealthyCluster(state, timeoutMs);
  await waitFor('the leader through HAProxy', timeoutMs, () => primaryReachable(state));
  return state;
};

/** Waits until all three nodes run, one leads and (synchronous mode) one is the synchronous standby. */
export const waitForHealthyCluster = async (state: ClusterState, timeoutMs: number): Promise<void> => {
  await waitFor('every node to run and replicate', timeoutMs, async () =>
    isHealthy(state, await readMembers(state)),
  );
};

/** Waits until a running leader other than `previous` leads; returns its name. */
export const waitForNewLeader = async (
  state: ClusterState,
  previous: NodeName | undefined,
  timeoutMs: number,
): Promise<NodeName> => {
  let leader: NodeName | undefined;
  await waitFor('a new leader', timeoutMs, async () => {
    leader = runningLeader(await readMembers(state));
    return leader !== undefined && leader !== previous;
  });
  return leader as NodeName;
};

/** Waits until a running leader answers through HAProxy; returns its name. */
export const waitForLeader = async (state: ClusterState, timeoutMs: number): Promise<NodeName> => {
  let leader: NodeName | undefined;
  await waitFor('a leader', timeoutMs, async () => {
    leader = runningLeader(await readMembers(state));
    return leader !== undefined && (await primaryReachable(state));
  });
  return leader as NodeName;
};

/** The current leader's name, undefined while there is none. */
export const currentLeader = async (state: ClusterState): Promise<NodeName | undefined> =>
  runningLeader(await readMembers(state));

/** SIGKILL to a node's PostgreSQL postmaster only: its Patroni stays and decides what follows. */
export const killNodePostgres = async (state: ClusterState, name: NodeName): Promise<boolean> => {
  const pid = await postmasterPid(nodeDataDirectory(state.directory, name));
  if (pid === undefined) return false;
  process.kill(pid, 'SIGKILL');
  await waitForExit(pid, 10_000);
  return true;
};

/** SIGKILL to a node's Patroni and its PostgreSQL together: the node is gone as a machine would be. */
export const killNode = async (state: ClusterState, name: NodeName): Promise<void> => {
  const patroni = state.pids.nodes[name];
  const postmaster = await postmasterPid(nodeDataDirectory(state.directory, name));
  if (isAlive(patroni)) process.kill(patroni, 'SIGKILL');
  if (postmaster !== undefined) process.kill(postmaster, 'SIGKILL');
  await waitForExit(patroni, 10_000);
  if (postmaster !== undefined) await waitForExit(postmaster, 10_000);
};

/** Starts a node's Patroni again (it rejoins as a replica, rewound when it must be); returns the state with its pid. */
export const startNode = async (state: ClusterState, name: NodeName): Promise<ClusterState> => {
  // The killed postmaster's backends leave once they notice; until then the data folder is still in use.
  await waitFor(
    `${name}'s old PostgreSQL to leave`,
    30_000,
    async () => (await postmasterPid(nodeDataDirectory(state.directory, name))) === undefined,
  );
  const pid = await launchPatroni(state, name);
  const next: ClusterState = {
    ...state,
    pids: { ...state.pids, nodes: { ...state.pids.nodes, [name]: pid } },
  };
  await writeClusterState(next);
  return next;
};

/** What `status` shows: the processes, and each member as Patroni sees it. */
export interface ClusterStatus {
  readonly state: ClusterState;
  readonly processes: Readonly<Record<string, { readonly pid: number; readonly alive: boolean }>>;
  readonly members: readonly ClusterMember[];
  readonly healthy: boolean;
}

/** The cluster in `directory`, or undefined when none was started there. */
export const clusterStatus = async (directory: string): Promise<ClusterStatus | undefined> => {
  const state = await readClusterState(directory);
  if (state === undefined) return undefined;
  const pids: Record<string, number> = {
    etcd: state.pids.etcd,
    haproxy: state.pids.haproxy,
    ...state.pids.nodes,
  };
  const members = await readMembers(state);
  return {
    state,
    processes: Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, { pid, alive: isAlive(pid) }]),
    ),
    members,
    healthy: isHealthy(state, members),
  };
};

/** Stops HAProxy, the nodes (each Patroni stops its PostgreSQL) and etcd, then removes the data folder. */
export const clusterDown = async (directory: string, log: (line: string) => void): Promise<boolean> => {
  const state = await readClusterState(directory);
  if (state === undefined) return false;
  await stopProcess(state.pids.haproxy, 5_000);
  await Promise.all(
    nodeNames.map(async (name) => {
      await stopProcess(state.pids.nodes[name], 30_000);
      const postmaster = await postmasterPid(nodeDataDirectory(directory, name));
      if (postmaster !== undefined) await stopProcess(postmaster, 10_000);
    }),
  );
  await stopProcess(state.pids.etcd, 5_000);
  await rm(directory, { recursive: true, force: true });
  log(`stopped the cluster and removed ${directory}`);
  return true;
};
