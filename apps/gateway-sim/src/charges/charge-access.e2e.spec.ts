import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewaySim } from '../start-gateway-sim.js';
import type { RunningGatewaySim } from '../start-gateway-sim.js';

const apiToken = 'a-gateway-api-token-of-the-operator';
let gateway: RunningGatewaySim;

beforeAll(async () => {
  gateway = await startGatewaySim({ apiToken });
});
afterAll(async () => {
  await gateway.close();
});

const charge = (reference: string, headers: Record<string, string>) =>
  fetch(`${gateway.url}/charges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...headers },
    body: JSON.stringify({ reference, amount: 1250, currency: 'EUR', cardToken: 'tok_visa' }),
  });
const inquire = (reference: string, headers: Record<string, string>) =>
  fetch(`${gateway.url}/charges?reference=${reference}`, { headers });

describe('charges with an API token set', () => {
  it('refuses a charge and an inquiry without the token, or with another, and charges nothing', async () => {
    const reference = randomUUID();
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token-at-all' },
      { authorization: apiToken },
    ];
    for (const headers of attempts) {
      const refused = await charge(reference, headers);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await inquire(reference, headers)).status).toBe(401);
    }
    const found = await inquire(reference, { authorization: `Bearer ${apiToken}` });
    expect(await found.json()).toEqual({ charges: [] });
  });

  it('takes a charge with the token', async () => {
    const reference = randomUUID();
    const charged = await charge(reference, { authorization: `Bearer ${apiToken}` });
    expect(charged.status).toBe(201);
    const found = await inquire(reference, { authorization: `Bearer ${apiToken}` });
    expect(((await found.json()) as { charges: unknown[] }).charges).toHaveLength(1);
  });
});
