import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { findFreePort, startEmbeddedPostgres } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';
import { startGatewaySimProcess } from './gateway-sim-process.js';
import type { GatewaySimProcess } from './gateway-sim-process.js';

/** The preferred port of the embedded PostgreSQL (a free one is used when it is taken). */
export const embeddedPostgresPort = 54329;

export interface EmbeddedRuntimeOptions {
  /** Where PostgreSQL keeps its data; kept between runs. */
  readonly dataDirectory?: string;
  /** Start the gateway simulator too, its webhooks pointed at the api on this port. */
  readonly gateway?: { readonly apiPort: number; readonly onOutput?: (line: string) => void };
  readonly onLog?: (line: string) => void;
}

/** What the embedded default runs beside the api, and how to stop it. */
export interface EmbeddedRuntime {
  readonly postgres: EmbeddedPostgresServer;
  readonly gateway: (GatewaySimProcess & { readonly webhookSecret: string }) | undefined;
  stop(): Promise<void>;
}

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolvePort) => {
    const probe = createServer();
    probe.once('error', () => resolvePort(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolvePort(true)));
  });

/**
 * Starts embedded PostgreSQL with its data in `.once/postgres` (fsync on: this is the user's data), and the gateway
 * simulator as a child process.
 *
 * @example
 * const runtime = await startEmbeddedRuntime({ gateway: { apiPort: 3000 } });
 * await runtime.stop();
 */
export const startEmbeddedRuntime = async (options: EmbeddedRuntimeOptions = {}): Promise<EmbeddedRuntime> => {
  const dataDirectory = options.dataDirectory ?? resolve(process.cwd(), '.once', 'postgres');
  const port = (await portIsFree(embeddedPostgresPort)) ? embeddedPostgresPort : await findFreePort();
  const postgres = await startEmbeddedPostgres({ dataDirectory, port, ...(options.onLog ? { onLog: options.onLog } : {}) });
  let gateway: EmbeddedRuntime['gateway'];
  try {
    if (options.gateway) {
      const webhookSecret = randomBytes(24).toString('base64url');
      const child = await startGatewaySimProcess({
        port: await findFreePort(),
        webhook: { url: `http://127.0.0.1:${String(options.gateway.apiPort)}/webhooks/gateway`, secret: webhookSecret },
        ...(options.gateway.onOutput ? { onOutput: options.gateway.onOutput } : {}),
      });
      gateway = Object.assign(child, { webhookSecret });
    }
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  return {
    postgres,
    gateway,
    stop: async () => {
      await gateway?.stop();
      await postgres.stop();
    },
  };
};
