import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/** The gateway simulator running as a child process beside the api. */
export interface GatewaySimProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface GatewaySimProcessOptions {
  readonly port: number;
  /** The bearer secret its `/charges` need; open to any caller on loopback when omitted. */
  readonly apiToken?: string;
  readonly webhook?: { readonly url: string; readonly secret: string };
  readonly logLevel?: string;
  readonly onOutput?: (line: string) => void;
}

// From the build (`node apps/api/dist/main.js`) the sibling runs from its build too; from sources, through tsx.
const runsFromBuild = import.meta.url.endsWith('.js');
const gatewayCommand = runsFromBuild
  ? [fileURLToPath(new URL('../../../gateway-sim/dist/main.js', import.meta.url))]
  : [
      '--conditions=@once/source',
      '--import',
      'tsx',
      fileURLToPath(new URL('../../../gateway-sim/src/main.ts', import.meta.url)),
    ];

/**
 * Starts `apps/gateway-sim` as its own process and waits until it answers `/health`. A separate process (not an
 * import): the api imports no app, and the gateway must outlive an api that crashes.
 *
 * @example
 * const gateway = await startGatewaySimProcess({ port: 54330, apiToken: randomBytes(24).toString('hex') });
 * await gateway.stop();
 */
export const startGatewaySimProcess = async (
  options: GatewaySimProcessOptions,
): Promise<GatewaySimProcess> => {
  const child = spawn(process.execPath, gatewayCommand, {
    env: {
      ...process.env,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      ...(options.apiToken ? { ONCE_GATEWAY_API_TOKEN: options.apiToken } : {}),
      ONCE_LOG_LEVEL: options.logLevel ?? 'warn',
      ...(options.webhook
        ? {
            ONCE_GATEWAY_WEBHOOK_URL: options.webhook.url,
            ONCE_GATEWAY_WEBHOOK_SECRET: options.webhook.secret,
          }
        : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const forward = (chunk: Buffer) => options.onOutput?.(chunk.toString('utf8').trimEnd());
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  const url = `http://127.0.0.1:${String(options.port)}`;
  const exited = once(child, 'exit');

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };

  for (let attempt = 0; attempt < 150; attempt++) {
    if (child.exitCode !== null) throw new Error(`gateway-sim exited with code ${String(child.exitCode)}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { url, pid: child.pid ?? -1, stop };
    await sleep(100);
  }
  await stop();
  throw new Error('gateway-sim did not become healthy within 15 s');
};
