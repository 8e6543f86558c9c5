import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deriveId } from '@once/idempotency';
import { getIdempotencyKey } from '@once/read-models';
import { prometheusNamingProblems } from '@once/testing';
import { createApiKeyStore } from './http/auth/index.js';
import { createHttp, useApiProcesses } from './testing/index.js';

// A deployment with an external projector: the api runs no completer, so a key whose client went away is finished by
// the projector process, with the api's command handlers (a card payment asks the gateway before charging again).

const projectorMain = fileURLToPath(new URL('../../projector/src/main.ts', import.meta.url));

const env = useApiProcesses();

/** `apps/projector` as its own process; resolves once it printed its start line, with where its metrics are. */
const startProjectorProcess = async (settings: Record<string, string>): Promise<{ metricsUrl: string }> => {
  const child = spawn(process.execPath, ['--conditions=@once/source', '--import', 'tsx', projectorMain], {
    env: { ...process.env, ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  env.stopAfterAll(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const scan = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const started = output
        .split('\n')
        .find((line) => line.includes('"msg":"projector started"') && line.endsWith('}'));
      if (started) resolve({ metricsUrl: (JSON.parse(started) as { metrics: string }).metrics });
    };
    child.stdout.on('data', scan);
    child.stderr.on('data', scan);
    void exited.then(() => reject(new Error(`the projector exited:\n${output}`)));
  });
};

const externalApi = (fault?: string) =>
  env.startApi({ ...(fault ? { fault } : {}), env: { ONCE_PROJECTOR: 'external' } });

describe('the projector process', () => {
  it('completes a card payment whose api died after the gateway charged, without charging twice', async () => {
    await startProjectorProcess({
      ...env.environment(),
      ONCE_COMPLETER_INTERVAL_MS: '200',
      ONCE_PROJECTOR_POLL_MS: '50',
      ONCE_LOG_LEVEL: 'info',
    });
    // Given an api that dies right after the gateway charged, before the key is completed
    const crashing = await externalApi('after-gateway-charge');
    const scope = { tenantId: randomUUID(), actorId: randomUUID() };
    const apiKey = await createApiKeyStore(env.db.pool).create(scope);
    const http = createHttp(crashing.url);
    const invoice = await http.post('/invoices', {
      apiKey,
      key: randomUUID(),
      body: { currency: 'EUR', total: 5000 },
    });
    expect(invoice.status).toBe(201);
    const invoiceId = invoice.json<{ id: string }>().id;
    const key = randomUUID();
    const body = { method: 'card', amount: 3000, currency: 'EUR', cardToken: 'tok_visa' };
    await expect(http.post(`/invoices/${invoiceId}/payments`, { apiKey, key, body })).rejects.toThrow();
    expect((await crashing.exited).signal).toBe('SIGKILL');

    // When no client comes back, the projector's completer finishes the key once its lease ended
    await expect
      .poll(async () => (await getIdempotencyKey(env.db.pool, { ...scope, key }))?.status, {
        timeout: 60_000,
        interval: 200,
      })
      .toBe('completed');

    // Then the payment is captured with the one charge, and a late retry gets the stored answer
    const paymentId = deriveId(scope, key, 'payment', 0);
    const charges = (await (await fetch(`${env.gateway.url}/charges?reference=${paymentId}`)).json()) as {
      charges: unknown[];
    };
    expect(charges.charges).toHaveLength(1);
    const api = await externalApi();
    const retry = await createHttp(api.url).post(`/invoices/${invoiceId}/payments`, { apiKey, key, body });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json()).toMatchObject({ id: paymentId, status: 'captured', amount: 3000 });
  });

  it('serves /metrics on its own port, every metric named with one once_ prefix, and /health/live', async () => {
    // A second projector: a standby beside the leader above reports its own process too.
    const { metricsUrl } = await startProjectorProcess({
      ...env.environment(),
      ONCE_PROJECTOR_METRICS_PORT: '0',
      ONCE_LOG_LEVEL: 'info',
    });
    const metrics = await fetch(metricsUrl);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    for (const name of [
      'once_scavenger_removed_streams_total',
      'once_scavenger_lag_seconds',
      'once_webhook_attempts_total',
      'once_webhook_retry_backlog',
      'once_process_cpu_seconds_total',
    ])
      expect(text).toContain(`# TYPE ${name} `);
    expect(prometheusNamingProblems(text)).toEqual([]);
    expect((await fetch(new URL('/health/live', metricsUrl))).status).toBe(200);
    expect((await fetch(new URL('/nothing-here', metricsUrl))).status).toBe(404);
  });
});
