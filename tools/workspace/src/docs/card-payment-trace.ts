import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '@once/api';
import { findFreePort } from '@once/postgres';
import { workspaceRoot } from '../workspace-root.js';
import { recordFunctionCalls } from './precise-coverage.js';

/**
 * Measures the files a first card payment runs through: the api in this process over `DATABASE_URL`, the gateway
 * simulator as its own process (as the api's e2e tests run it), the completer's sweep held off, one warm-up card
 * payment so lazy initialisation is not counted, then V8's precise coverage around each of a few card payments with a
 * fresh key, each followed by an idle wait as long as it took, without a request. Prints JSON: `measured` (repository
 * files with a function called during every measured payment, minus those an idle wait ran), `idle` (what ran without
 * a request: timers and background work) and `dropped` (files of every payment an idle wait ran too, left out of
 * `measured`). The projector runs in a worker thread, another isolate, so none of its files are counted.
 *
 * @example
 * DATABASE_URL=postgres://… node --conditions=@once/source --import tsx tools/workspace/src/docs/card-payment-trace.ts
 */
const databaseUrl = process.env['DATABASE_URL'];
if (!databaseUrl) throw new Error('DATABASE_URL is required: the database the api runs over');

const runTypeScript = (file: string, args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess =>
  spawn(
    process.execPath,
    ['--conditions=@once/source', '--import', 'tsx', join(workspaceRoot, file), ...args],
    { cwd: workspaceRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );

const startGateway = async (apiToken: string): Promise<{ url: string; stop(): Promise<void> }> => {
  const port = await findFreePort();
  const child = runTypeScript('apps/gateway-sim/src/main.ts', [], {
    PORT: String(port),
    HOST: '127.0.0.1',
    ONCE_GATEWAY_API_TOKEN: apiToken,
    ONCE_LOG_LEVEL: 'warn',
  });
  child.stdout?.resume();
  const url = `http://127.0.0.1:${String(port)}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (
      await fetch(`${url}/health`).then(
        (answer) => answer.ok,
        () => false,
      )
    )
      return {
        url,
        stop: async () => {
          child.kill('SIGTERM');
          if (child.exitCode === null) await once(child, 'exit');
        },
      };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the gateway simulator did not answer /health within 30 s');
};

/** A staff API key made by the repository's own `once-keys` command. */
const createStaffKey = async (): Promise<string> => {
  const child = runTypeScript('apps/api/src/cli/once-keys.ts', ['create', '--label', 'walk'], {
    DATABASE_URL: databaseUrl,
  });
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`once-keys create exited with ${String(code)}`);
  return (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiKey: string }).apiKey;
};

/** How many first card payments are measured: a file counts when it ran in every one of them. */
const measuredPayments = 3;

const gatewayApiToken = randomBytes(24).toString('hex');
const gateway = await startGateway(gatewayApiToken);
const app = await buildApp({
  databaseUrl,
  secretsKey: randomBytes(32).toString('base64'),
  gatewayUrl: gateway.url,
  gatewayApiToken,
  logger: false,
  // The completer's sweep waits an hour, so it cannot fall inside a sample: it resumes keys, no request's path.
  completerIntervalMs: 3_600_000,
});
try {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}`;
  const apiKey = await createStaffKey();
  const post = async (path: string, body: unknown): Promise<number> => {
    const answer = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(body),
    });
    await answer.arrayBuffer();
    return answer.status;
  };
  const issued = await fetch(`${url}/invoices`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify({ currency: 'EUR', total: 1000 }),
  });
  if (issued.status !== 201) throw new Error(`POST /invoices answered ${String(issued.status)}`);
  const invoiceId = ((await issued.json()) as { id: string }).id;
  const payByCard = () =>
    post(`/invoices/${invoiceId}/payments`, {
      method: 'card',
      amount: 100,
      currency: 'EUR',
      cardToken: 'tok_visa',
    });

  const warmUp = await payByCard();
  if (warmUp !== 201) throw new Error(`the warm-up card payment answered ${String(warmUp)}`);

  const calls = await recordFunctionCalls(workspaceRoot);
  const payments: ReadonlySet<string>[] = [];
  const idle = new Set<string>();
  for (let payment = 0; payment < measuredPayments; payment++) {
    await calls.take();
    const started = performance.now();
    const status = await payByCard();
    payments.push(await calls.take());
    if (status !== 201) throw new Error(`a measured card payment answered ${String(status)}`);
    await sleep(performance.now() - started);
    for (const file of await calls.take()) idle.add(file);
  }
  await calls.stop();
  const inEveryPayment = [...(payments[0] ?? [])].filter((file) => payments.every((ran) => ran.has(file)));

  const sorted = (files: Iterable<string>) => [...files].sort();
  process.stdout.write(
    `${JSON.stringify(
      {
        measured: sorted(inEveryPayment.filter((file) => !idle.has(file))),
        idle: sorted(idle),
        dropped: sorted(inEveryPayment.filter((file) => idle.has(file))),
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await app.close();
  await gateway.stop();
}
