import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { clusterDown, clusterStatus, clusterUp } from './cluster-control.js';
import { ClusterPrerequisiteError } from './cluster-packages.js';
import { defaultClusterDirectory, primaryUrl } from './cluster-state.js';

const usage = `A highly available PostgreSQL 15 on this machine: etcd, three Patroni nodes, HAProxy, all on 127.0.0.1.

  npm run cluster -- up [--async] [--base-port 27400] [--dir DIR]
  npm run cluster -- status [--dir DIR]
  npm run cluster -- down [--dir DIR]

up            installs postgresql-15, patroni, etcd-server and haproxy with apt-get when missing (as root), starts
              the cluster and prints its DATABASE_URL (HAProxy's read-write port, always the leader)
--async       asynchronous replication (default: Patroni's synchronous_mode, no acknowledged commit lost)
--base-port   the first of its ports (default 27400; uses up to +23)
--dir         its data folder (default $ONCE_CLUSTER_DIR or once-cluster in the temporary folder)
status        each node's role, state and lag; exit status 0 only when every node runs and replicates
down          stops everything and removes the data folder`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    async: { type: 'boolean' },
    'base-port': { type: 'string' },
    dir: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const parsed = z
  .object({
    command: z.enum(['up', 'down', 'status']),
    async: z.boolean().default(false),
    basePort: z.coerce.number().int().min(1024).max(65_000).default(27_400),
    dir: z.string().min(1).default(defaultClusterDirectory()),
  })
  .safeParse({
    command: positionals[0],
    async: values.async,
    basePort: values['base-port'],
    dir: values.dir,
  });
if (!parsed.success || positionals.length !== 1) {
  console.error(`${parsed.success ? 'give one command' : z.prettifyError(parsed.error)}\n\n${usage}`);
  process.exit(2);
}
const input = parsed.data;
const directory = resolve(input.dir);
const log = (line: string) => console.log(line);

try {
  switch (input.command) {
    case 'up': {
      const state = await clusterUp({ directory, synchronous: !input.async, basePort: input.basePort, log });
      log(`cluster up in ${directory} (${state.synchronous ? 'synchronous' : 'asynchronous'} replication)`);
      log(`DATABASE_URL=${primaryUrl(state)}`);
      break;
    }
    case 'status': {
      const status = await clusterStatus(directory);
      if (status === undefined) {
        log(`no cluster in ${directory}`);
        process.exit(1);
      }
      for (const [name, { pid, alive }] of Object.entries(status.processes)) {
        log(`${name.padEnd(8)} pid ${String(pid).padEnd(8)} ${alive ? 'running' : 'gone'}`);
      }
      for (const member of status.members) {
        log(
          `${member.name.padEnd(8)} ${member.role.padEnd(13)} ${member.state.padEnd(10)} timeline ${String(member.timeline ?? '-')}  lag ${String(member.lag ?? 0)}`,
        );
      }
      log(`${status.state.synchronous ? 'synchronous' : 'asynchronous'} replication`);
      log(`DATABASE_URL=${primaryUrl(status.state)}`);
      log(status.healthy ? 'healthy' : 'NOT healthy');
      process.exit(status.healthy ? 0 : 1);
      break;
    }
    case 'down':
      if (!(await clusterDown(directory, log))) log(`no cluster in ${directory}`);
      break;
    default: {
      const _exhaustive: never = input.command;
      throw new Error(String(_exhaustive));
    }
  }
} catch (error) {
  if (error instanceof ClusterPrerequisiteError) {
    console.error(`cannot run the cluster here: ${error.message}`);
    process.exit(3);
  }
  throw error;
}
