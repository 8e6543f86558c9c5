import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildGatewaySim } from '../gateway-sim.js';
import type { FaultAccess } from './fault-access.js';

const arm = { target: 'charge', fault: { kind: 'error', status: 502 }, times: 1 };
const charge = { reference: randomUUID(), amount: 450, currency: 'EUR', cardToken: 'tok_visa' };

// Listening (not inject): the charge route reads `headersDistinct`, which only a real request has.
const simulator = async (faultAccess: FaultAccess) => {
  const { app } = buildGatewaySim({ logger: false, faultAccess });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}`;
  const inject = async (request: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    payload?: unknown;
  }) => {
    const response = await fetch(`${base}${request.url}`, {
      method: request.method,
      headers: { ...(request.payload ? { 'content-type': 'application/json' } : {}), ...request.headers },
      ...(request.payload ? { body: JSON.stringify(request.payload) } : {}),
    });
    return { statusCode: response.status, body: await response.text() };
  };
  return { inject, close: () => app.close() };
};

describe('the fault controls', () => {
  it('need the token when one is set: on the admin endpoint and in the gateway-fault header', async () => {
    const app = await simulator({ token: 'a-long-enough-fault-token' });
    try {
      const withoutToken = await app.inject({ method: 'POST', url: '/admin/faults', payload: arm });
      expect(withoutToken.statusCode).toBe(401);
      const wrongToken = await app.inject({
        method: 'GET',
        url: '/admin/faults',
        headers: { 'gateway-fault-token': 'a-long-enough-fault-tokem' },
      });
      expect(wrongToken.statusCode).toBe(401);
      const faulted = await app.inject({
        method: 'POST',
        url: '/charges',
        headers: { 'idempotency-key': randomUUID(), 'gateway-fault': 'error=503' },
        payload: charge,
      });
      expect(faulted.statusCode).toBe(401);
      const armed = await app.inject({
        method: 'POST',
        url: '/admin/faults',
        headers: { 'gateway-fault-token': 'a-long-enough-fault-token' },
        payload: arm,
      });
      expect(armed.statusCode).toBe(201);
      const plain = await app.inject({
        method: 'POST',
        url: '/charges',
        headers: { 'idempotency-key': randomUUID() },
        payload: charge,
      });
      expect(plain.statusCode, plain.body).toBe(502);
    } finally {
      await app.close();
    }
  });

  it('are refused to everyone when closed, and open to anyone when open', async () => {
    const closed = await simulator('closed');
    const open = await simulator('open');
    try {
      expect((await closed.inject({ method: 'GET', url: '/admin/faults' })).statusCode).toBe(401);
      expect((await open.inject({ method: 'GET', url: '/admin/faults' })).statusCode).toBe(200);
    } finally {
      await closed.close();
      await open.close();
    }
  });
});
