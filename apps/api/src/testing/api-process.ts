import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { findFreePort } from '@once/postgres';

/** The api running as its own process (`node --conditions=@once/source --import tsx apps/api/src/main.ts`). */
export interface ApiProcess {
  readonly url: string;
  /** Settles with the exit code or signal when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Asks for a graceful shutdown (SIGTERM) and waits for the exit. */
  stop(): Promise<void>;
  output(): string;
}

const mainTs = fileURLToPath(new URL('../main.ts', import.meta.url));

/**
 * Starts the api in a child process with the given environment and waits until `/health` answers. Pass `port` to
 * restart an api where a browser page expects it (its origin).
 *
 * @example
 * const api = await startApiProcess({ DATABASE_URL: db.connectionString, ONCE_GATEWAY_URL: gateway.url });
 */
export const startApiProcess = async (
  env: Record<string, string>,
  options: { readonly port?: number } = {},
): Promise<ApiProcess> => {
  const port = options.port ?? (await findFreePort());
  const child = spawn(process.execPath, ['--conditions=@once/source', '--import', 'tsx', mainTs], {
    env: { ...process.env, ONCE_LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const url = `http://127.0.0.1:${String(port)}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`the api exited with ${String(child.exitCode)}:\n${output}`);
    if (
      await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      )
    ) {
      return { url, exited, stop, output: () => output };
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`the api did not become healthy within 30 s:\n${output}`);
};
