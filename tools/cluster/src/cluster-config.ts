import { join } from 'node:path';
import { nodeNames } from './cluster-state.js';
import type { ClusterState, NodeName } from './cluster-state.js';

/** Where the Debian packages put PostgreSQL 15's binaries; Patroni runs them itself. */
export const postgresBinaries = '/usr/lib/postgresql/15/bin';

/** The leader key lives this long without a renewal: a dead leader's node is replaced after about this long. */
const leaderTtlSeconds = 10;

/** The folder of one node: its Patroni configuration, its log and its PostgreSQL data. */
export const nodeDirectory = (directory: string, name: NodeName): string => join(directory, name);

export const nodeDataDirectory = (directory: string, name: NodeName): string =>
  join(nodeDirectory(directory, name), 'data');

/**
 * One node's Patroni configuration. It is written as JSON, which YAML reads as it is. The bootstrap part goes into
 * etcd once, when the first node initialises the cluster: fsync on, a short leader TTL, `synchronous_mode` as asked.
 */
export const patroniConfiguration = (state: ClusterState, name: NodeName): unknown => {
  const { ports } = state;
  const node = ports.nodes[name];
  const folder = nodeDirectory(state.directory, name);
  return {
    scope: 'once',
    namespace: '/once/',
    name,
    log: { level: 'INFO' },
    restapi: {
      listen: `127.0.0.1:${String(node.rest)}`,
      connect_address: `127.0.0.1:${String(node.rest)}`,
    },
    etcd3: { hosts: [`127.0.0.1:${String(ports.etcdClient)}`] },
    bootstrap: {
      dcs: {
        ttl: leaderTtlSeconds,
        loop_wait: 1,
        retry_timeout: 4,
        // A replica further behind than this is never promoted (asynchronous mode only; a synchronous standby has it all).
        maximum_lag_on_failover: 1_048_576,
        synchronous_mode: state.synchronous,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            max_connections: 300,
            wal_level: 'replica',
            hot_standby: 'on',
            wal_log_hints: 'on',
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: '256MB',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, 'data-checksums'],
    },
    postgresql: {
      listen: `127.0.0.1:${String(node.postgres)}`,
      connect_address: `127.0.0.1:${String(node.postgres)}`,
      data_dir: nodeDataDirectory(state.directory, name),
      bin_dir: postgresBinaries,
      pgpass: join(folder, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: state.password },
        replication: { username: 'replicator', password: state.password },
        rewind: { username: 'rewinder', password: state.password },
      },
      parameters: { unix_socket_directories: folder },
      pg_hba: [
        'local all all trust',
        'host replication replicator 127.0.0.1/32 scram-sha-256',
        'host all all 127.0.0.1/32 scram-sha-256',
      ],
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
};

/**
 * HAProxy in TCP mode: the read-write port goes to the one node whose Patroni answers 200 on `/primary`, the
 * read-only port to those answering 200 on `/replica`. A node marked down has its sessions cut, so clients
 * reconnect to the new leader instead of waiting on a dead one.
 */
export const haproxyConfiguration = (state: ClusterState): string => {
  const servers = nodeNames
    .map((name) => {
      const node = state.ports.nodes[name];
      return `  server ${name} 127.0.0.1:${String(node.postgres)} maxconn 300 check port ${String(node.rest)}`;
    })
    .join('\n');
  const listener = (name: string, port: number, check: string) =>
    [
      `listen ${name}`,
      `  bind 127.0.0.1:${String(port)}`,
      `  option httpchk OPTIONS ${check}`,
      '  http-check expect status 200',
      '  default-server inter 500ms fastinter 250ms fall 2 rise 1 on-marked-down shutdown-sessions',
      servers,
    ].join('\n');
  return [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode tcp',
    '  log global',
    '  retries 2',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    listener('primary', state.ports.primary, '/primary'),
    listener('replicas', state.ports.replicas, '/replica'),
    '',
  ].join('\n');
};
