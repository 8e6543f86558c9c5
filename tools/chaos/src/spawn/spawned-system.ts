import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { findFreePort } from '@once/postgres';
import { generateWebhookSecret } from '@once/webhooks';
import { childEnvironment } from './child-environment.js';
import type { ClusterDatabase } from './cluster-database.js';
import type { ChildRole, ChildSettings } from './child-environment.js';
import { readyWhenHealthy, readyWhenPrinted, startManagedProcess } from './managed-process.js';
import type { ManagedProcess } from './managed-process.js';
import { createApiKey, nodeScript } from './once-scripts.js';
import type { IssuedApiKey } from './once-scripts.js';
import { startPostgresNode } from './postgres-node.js';
import type { PostgresNode } from './postgres-node.js';
import { startBalancer } from './round-robin-balancer.js';
import type { Balancer } from './round-robin-balancer.js';

/** A whole Once deployment on this machine: PostgreSQL, api replicas behind a balancer, projectors, the gateway. */
export interface SpawnedSystem {
  /** The balancer in front of the api replicas. */
  readonly url: string;
  readonly credentials: IssuedApiKey;
  /** Where the log, the key table and the read models live: the embedded PostgreSQL, or the HA cluster. */
  readonly databaseUrl: string;
  /** EventStoreDB holding the streams, when the run was given one (the read models stay in PostgreSQL). */
  readonly eventStoreUrl?: string;
  /** The embedded PostgreSQL (with a cluster, it holds only the gateway's database). */
  readonly postgres: PostgresNode;
  /** The HA cluster the run uses instead of the embedded PostgreSQL, when it was given one. */
  readonly cluster?: ClusterDatabase;
  readonly gatewayDatabaseUrl: string;
  readonly gatewayUrl: string;
  readonly apis: readonly ManagedProcess[];
  /** Where each api replica listens, in the order of `apis`. */
  readonly apiPorts: readonly number[];
  /** The projector and its standby. */
  readonly projectors: readonly ManagedProcess[];
  readonly gateway: ManagedProcess;
  /** Starts one more projector that runs the completer (for a run whose projectors started without it). */
  startCompleter(): Promise<ManagedProcess>;
  /** Stops everything, PostgreSQL last; `keepPostgres` leaves it running for the checker (stop it with `postgres.stop`). */
  stop(options?: { readonly keepPostgres?: boolean }): Promise<void>;
}

export interface SpawnOptions {
  readonly replicas: number;
  /** Where PostgreSQL keeps its data. */
  readonly directory: string;
  readonly projectors?: number;
  readonly leaseMs?: number;
  readonly poolSize?: number;
  readonly onProcessEvent?: (event: 'exited' | 'restarted', name: string) => void;
  /** Extra PostgreSQL settings (`shared_preload_libraries`, …). */
  readonly postgresSettings?: Readonly<Record<string, string>>;
  /**
   * An HA cluster for the api and the projectors; the embedded PostgreSQL then holds only the gateway's charges, as
   * another company's system would, so a failover of the cluster cannot take them with it.
   */
  readonly cluster?: ClusterDatabase;
  /**
   * EventStoreDB for the streams of the api and the projectors (`EVENTSTORE_URL`); it runs outside the system, so
   * killing an api replica or a projector leaves it up.
   */
  readonly eventStoreUrl?: string;
  /** False: the projectors start without the completer (default true); `startCompleter` brings one. */
  readonly completer?: boolean;
  /** Settings every api and projector gets on top of the spawner's own. */
  readonly environment?: Readonly<Record<string, string>>;
}

const gatewayDatabase = 'once_gateway';

const createGatewayDatabase = async (connectionString: string): Promise<string> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${gatewayDatabase}`);
  } finally {
    await client.end();
  }
  return connectionString.replace(/\/postgres$/, `/${gatewayDatabase}`);
};

const allOrFirstError = <T>(results: readonly PromiseSettledResult<T>[]): T[] =>
  results.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });

/**
 * Starts the system and waits until every part is ready. Each child is supervised: killed, it comes back.
 *
 * @example
 * const system = await spawnSystem({ replicas: 3, directory: '/tmp/chaos-run' });
 * await system.stop();
 */
export const spawnSystem = async (options: SpawnOptions): Promise<SpawnedSystem> => {
  await mkdir(options.directory, { recursive: true });
  const postgres = await startPostgresNode(
    join(options.directory, 'postgres'),
    await findFreePort(),
    options.postgresSettings,
  );
  const started: ManagedProcess[] = [];
  let balancer: Balancer | undefined;
  const stop: SpawnedSystem['stop'] = async ({ keepPostgres = false } = {}) => {
    await Promise.all(started.map((process) => process.stop()));
    await balancer?.close();
    if (!keepPostgres) await postgres.stop();
  };
  try {
    const gatewayDatabaseUrl = await createGatewayDatabase(postgres.connectionString);
    const databaseUrl = options.cluster?.connectionString ?? postgres.connectionString;
    const [gatewayPort, ...apiPorts] = await Promise.all(
      Array.from({ length: options.replicas + 1 }, () => findFreePort()),
    );
    // Listening from the start: a port only reserved could be taken by a child's outgoing connection meanwhile.
    balancer = await startBalancer(0, apiPorts);
    const gatewayUrl = `http://127.0.0.1:${String(gatewayPort)}`;
    const settings: ChildSettings = {
      databaseUrl,
      ...(options.eventStoreUrl === undefined ? {} : { eventStoreUrl: options.eventStoreUrl }),
      gatewayDatabaseUrl,
      gatewayUrl,
      webhookUrl: `${balancer.url}/webhooks/gateway`,
      webhookSecret: generateWebhookSecret(),
      leaseMs: options.leaseMs ?? 3_000,
      poolSize: options.poolSize ?? 12,
      completer: options.completer ?? true,
      extraEnvironment: options.environment ?? {},
    };
    const launch = async (
      role: ChildRole,
      name: string,
      script: string,
      port?: number,
      childSettings: ChildSettings = settings,
    ) => {
      const { command, args } = nodeScript(script);
      const ready =
        port === undefined
          ? readyWhenPrinted('projector started')
          : readyWhenHealthy(
              `http://127.0.0.1:${String(port)}${role === 'api' ? '/health' : '/admin/faults'}`,
            );
      const managed = await startManagedProcess({
        name,
        command,
        args,
        env: childEnvironment(role, childSettings, port),
        ready,
        restartDelayMs: 300,
        ...(options.onProcessEvent ? { onEvent: options.onProcessEvent } : {}),
      });
      started.push(managed);
      return managed;
    };
    const gateway = await launch('gateway', 'gateway-sim', 'apps/gateway-sim/src/main.ts', gatewayPort);
    // The first replica migrates the schema; the others then start together.
    const [firstPort, ...otherPorts] = apiPorts as [number, ...number[]];
    const firstApi = await launch('api', 'api-1', 'apps/api/src/main.ts', firstPort);
    // Every start settles before a failed one stops the system, so none becomes ready after the stop, unstopped.
    const otherApis = allOrFirstError(
      await Promise.allSettled(
        otherPorts.map((port, index) =>
          launch('api', `api-${String(index + 2)}`, 'apps/api/src/main.ts', port),
        ),
      ),
    );
    const projectors: ManagedProcess[] = [];
    for (let index = 1; index <= (options.projectors ?? 2); index += 1) {
      projectors.push(await launch('projector', `projector-${String(index)}`, 'apps/projector/src/main.ts'));
    }
    const credentials = await createApiKey(databaseUrl);
    return {
      url: balancer.url,
      credentials,
      databaseUrl,
      ...(options.eventStoreUrl === undefined ? {} : { eventStoreUrl: options.eventStoreUrl }),
      postgres,
      ...(options.cluster ? { cluster: options.cluster } : {}),
      gatewayDatabaseUrl,
      gatewayUrl,
      apis: [firstApi, ...otherApis],
      apiPorts,
      projectors,
      gateway,
      startCompleter: () =>
        launch('projector', 'projector-completer', 'apps/projector/src/main.ts', undefined, {
          ...settings,
          completer: true,
        }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};
