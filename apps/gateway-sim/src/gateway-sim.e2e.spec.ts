import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewaySim } from './start-gateway-sim.js';
import type { RunningGatewaySim } from './start-gateway-sim.js';
import { generateWebhookSecret, verifyWebhook } from '@once/webhooks';

const webhookSecret = generateWebhookSecret();
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    received.push({ headers: request.headers, body });
    response.writeHead(204).end();
  });
});

let gateway: RunningGatewaySim;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  gateway = await startGatewaySim({
    webhook: { url: `http://127.0.0.1:${port}/hooks`, secret: webhookSecret },
  });
});

afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const chargeBody = (reference: string, cardToken = 'tok_visa') => ({
  reference,
  amount: 1250,
  currency: 'EUR',
  cardToken,
});

const charge = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}/charges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, ...headers },
    body: JSON.stringify(body),
  });

const inquire = async (reference: string) => {
  const response = await fetch(`${gateway.url}/charges?reference=${encodeURIComponent(reference)}`);
  return ((await response.json()) as { charges: { id: string; status: string }[] }).charges;
};

describe('charges', () => {
  it('charges once per key and replays the same charge', async () => {
    const key = `payment:${randomUUID()}`;
    const reference = randomUUID();
    const first = await charge(key, chargeBody(reference));
    const again = await charge(`"${key}"`, chargeBody(reference));
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const firstCharge = (await first.json()) as { id: string; status: string };
    expect(await again.json()).toEqual(firstCharge);
    expect(firstCharge.status).toBe('succeeded');
    expect(await inquire(reference)).toEqual([firstCharge]);
  });

  it('refuses the same key for a different charge', async () => {
    const key = randomUUID();
    await charge(key, chargeBody('a'));
    const reused = await charge(key, chargeBody('b'));
    expect(reused.status).toBe(422);
    expect(reused.headers.get('content-type')).toContain('application/problem+json');
  });

  it('declines the declining test tokens', async () => {
    const response = await charge(randomUUID(), chargeBody(randomUUID(), 'tok_declined'));
    expect(await response.json()).toMatchObject({ status: 'declined', declineCode: 'card_declined' });
  });

  it('needs a well-formed key and a valid body', async () => {
    expect((await charge('short', chargeBody('r'))).status).toBe(400);
    expect((await charge(randomUUID(), { ...chargeBody('r'), amount: -5 })).status).toBe(400);
    expect((await charge(randomUUID(), { ...chargeBody('r'), extra: true })).status).toBe(400);
  });

  it('finds nothing for an unknown reference', async () => {
    expect(await inquire(randomUUID())).toEqual([]);
  });
});

describe('faults', () => {
  it('charges but loses the response; the inquiry still finds the charge', async () => {
    const reference = randomUUID();
    await expect(
      charge(randomUUID(), chargeBody(reference), { 'gateway-fault': 'lost-response' }),
    ).rejects.toThrow();
    expect(await inquire(reference)).toHaveLength(1);
  });

  it('answers an injected 5xx without charging', async () => {
    const reference = randomUUID();
    const response = await charge(randomUUID(), chargeBody(reference), { 'gateway-fault': 'error=503' });
    expect(response.status).toBe(503);
    expect(await inquire(reference)).toEqual([]);
  });

  it('hangs without charging until the caller gives up', async () => {
    const reference = randomUUID();
    await expect(
      fetch(`${gateway.url}/charges`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
          'gateway-fault': 'hang',
        },
        body: JSON.stringify(chargeBody(reference)),
        signal: AbortSignal.timeout(200),
      }),
    ).rejects.toThrow();
    expect(await inquire(reference)).toEqual([]);
  });

  it('plays faults armed through the admin endpoint, once each', async () => {
    const armed = await fetch(`${gateway.url}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'charge', fault: { kind: 'error', status: 502 }, times: 1 }),
    });
    expect(armed.status).toBe(201);
    const key = randomUUID();
    const reference = randomUUID();
    expect((await charge(key, chargeBody(reference))).status).toBe(502);
    expect((await charge(key, chargeBody(reference))).status).toBe(201);
    expect(await inquire(reference)).toHaveLength(1);
  });

  it('can slow an inquiry down and still answer it', async () => {
    gateway.faults.arm('inquiry', { kind: 'latency', ms: 20 });
    expect(await inquire(randomUUID())).toEqual([]);
    expect(gateway.faults.list()).toEqual([]);
  });
});

describe('webhooks', () => {
  it('delivers a signed event per new charge, with an id derived from the charge', async () => {
    const reference = randomUUID();
    const created = (await (await charge(randomUUID(), chargeBody(reference))).json()) as { id: string };
    await expect.poll(() => received.find((delivery) => delivery.body.includes(reference))).toBeDefined();
    const delivery = received.find((entry) => entry.body.includes(reference));
    const id = String(delivery?.headers['webhook-id']);
    expect(id).toBe(`evt_${created.id}`);
    expect(
      verifyWebhook({ secrets: webhookSecret, headers: delivery?.headers ?? {}, body: delivery?.body ?? '' }),
    ).toMatchObject({ ok: true, id });
  });
});
