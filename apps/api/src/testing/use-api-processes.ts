import { afterAll, beforeAll } from 'vitest';
import { findFreePort } from '@once/postgres';
import { generateSecretsKey } from '@once/webhooks';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { startGatewaySimProcess } from '../embedded/gateway-sim-process.js';
import type { GatewaySimProcess } from '../embedded/gateway-sim-process.js';
import { startApiProcess } from './api-process.js';
import type { ApiProcess } from './api-process.js';

/** How a test starts one api process: a fault point to arm, the port to listen on, more environment. */
export interface ApiProcessOptions {
  readonly fault?: string;
  readonly port?: number;
  readonly env?: Readonly<Record<string, string>>;
}

/** What `useApiProcesses` gives a test file once its `beforeAll` has run. */
export interface ApiProcessesContext {
  readonly db: TestDatabase;
  readonly gateway: GatewaySimProcess;
  /** What every process of the file is told: the file's database and gateway, a lease of one second. */
  environment(): Record<string, string>;
  /** Starts the api as a child process; it is stopped after the file if it still runs. */
  startApi(options?: ApiProcessOptions): Promise<ApiProcess>;
  /** Runs `stop` after the file, newest first, before the gateway and the database go. */
  stopAfterAll(stop: () => Promise<unknown>): void;
}

/**
 * Registers the e2e setup of a test file whose api runs as child processes (to be killed at a fault point and
 * started again): its own database and the gateway simulator as a process, both outliving every api.
 *
 * @example
 * const env = useApiProcesses();
 * const crashing = await env.startApi({ fault: 'after-gateway-charge' });
 */
export const useApiProcesses = (): ApiProcessesContext => {
  const started = {} as { db: TestDatabase; gateway: GatewaySimProcess };
  const stops: (() => Promise<unknown>)[] = [];
  // Every api process of the file shares one server key, as the replicas of a deployment do.
  const secretsKey = generateSecretsKey();
  beforeAll(async () => {
    started.db = await createTestDatabase();
    started.gateway = await startGatewaySimProcess({ port: await findFreePort() });
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await started.gateway?.stop();
    await started.db?.release();
  });
  const context: ApiProcessesContext = {
    get db() {
      return started.db;
    },
    get gateway() {
      return started.gateway;
    },
    environment: () => ({
      DATABASE_URL: started.db.connectionString,
      ONCE_SECRETS_KEY: secretsKey,
      ONCE_GATEWAY_URL: started.gateway.url,
      ONCE_LEASE_MS: '1000',
    }),
    startApi: async (options = {}) => {
      const api = await startApiProcess(
        {
          ...context.environment(),
          ...(options.fault ? { ONCE_FAULT: options.fault } : {}),
          ...options.env,
        },
        options.port === undefined ? {} : { port: options.port },
      );
      stops.push(() => api.stop());
      return api;
    },
    stopAfterAll: (stop) => {
      stops.push(stop);
    },
  };
  return context;
};
