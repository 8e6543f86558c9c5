import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asInvoiceId, asPaymentId, money } from '@once/domain';
import { PaymentExceedsBalance } from '@once/domain/invoices';
import { Problem } from '@once/idempotency/fastify';
import { HttpProblem, problemCatalog, problemOfError } from '@once/cafe';
import { storeFailureProblem } from '../problems/index.js';
import { problemDetailsPlugin } from './problem-details.plugin.js';

const build = async () => {
  const logged: unknown[] = [];
  const app = Fastify({
    logger: { level: 'warn', stream: { write: (line: string) => void logged.push(JSON.parse(line)) } },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(problemDetailsPlugin, {
    catalog: problemCatalog,
    problemOf: problemOfError,
  });
  app.post(
    '/validated',
    { schema: { body: z.strictObject({ amount: z.number().int().positive() }) } },
    async () => ({}),
  );
  app.get('/domain', async () => {
    throw new PaymentExceedsBalance({
      invoiceId: asInvoiceId('i'),
      paymentId: asPaymentId('p'),
      amount: money(5, 'EUR'),
      outstanding: money(1, 'EUR'),
    });
  });
  app.get('/http-problem', async () => {
    throw new HttpProblem('unauthorized', { detail: 'no key', headers: { 'www-authenticate': 'Bearer' } });
  });
  app.get('/library-problem', async () => {
    throw new Problem('idempotency-key-in-flight', { retryAfterSeconds: 7 });
  });
  app.get('/store-down', async () => {
    throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  });
  app.get('/disk-full', async () => {
    throw new Error('the append failed', {
      cause: Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' }),
    });
  });
  app.get('/defect', async () => {
    throw new Error('a bug');
  });
  return { app, logged };
};

describe('the root error handler', () => {
  it('answers schema errors with 400 invalid-request and a pointer per issue', async () => {
    const { app } = await build();
    const response = await app.inject({
      method: 'POST',
      url: '/validated',
      payload: { amount: -1, extra: true },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json()).toMatchObject({
      type: '/problems/invalid-request',
      status: 400,
      errors: expect.any(Array),
    });
  });

  it('answers domain errors with their catalog status and type', async () => {
    const { app } = await build();
    const response = await app.inject({ method: 'GET', url: '/domain' });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      type: '/problems/payment-exceeds-balance',
      title: 'The payment exceeds the outstanding balance',
      status: 422,
      detail: expect.any(String),
      data: { invoiceId: 'i', paymentId: 'p', amount: money(5, 'EUR'), outstanding: money(1, 'EUR') },
      instance: '/domain',
    });
  });

  it('answers an HttpProblem with its status and headers', async () => {
    const { app } = await build();
    const response = await app.inject({ method: 'GET', url: '/http-problem' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it("answers the idempotency library's problems in the api's words, with their Link and Retry-After", async () => {
    const { app } = await build();
    const response = await app.inject({ method: 'GET', url: '/library-problem' });
    expect(response.statusCode).toBe(409);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.headers['link']).toBe(
      '</problems/idempotency-key-in-flight>; rel="describedby"; type="text/html"',
    );
    expect(response.json()).toEqual({
      type: '/problems/idempotency-key-in-flight',
      title: 'A request is outstanding for this Idempotency-Key',
      status: 409,
      instance: '/library-problem',
    });
  });

  it('answers a store that does not answer with 503 and Retry-After', async () => {
    const { app } = await build();
    const response = await app.inject({ method: 'GET', url: '/store-down' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
  });

  it('answers a full disk (SQLSTATE 53100, found along the cause chain) with 503 storage-full and Retry-After', async () => {
    const { app } = await build();
    const response = await app.inject({ method: 'GET', url: '/disk-full' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('60');
    expect(response.json()).toMatchObject({ type: '/problems/storage-full', status: 503 });
  });

  it('gives each store failure its own 503 type and no other error one', () => {
    const typeOf = (code: string) => storeFailureProblem(Object.assign(new Error('failed'), { code }))?.type;
    expect(typeOf('53100')).toBe('storage-full');
    expect(typeOf('25006')).toBe('database-read-only');
    expect(typeOf('57014')).toBe('statement-timeout');
    expect(typeOf('53300')).toBe('database-busy');
    expect(typeOf('57P01')).toBe('service-unavailable');
    expect(typeOf('57P03')).toBe('service-unavailable');
    expect(typeOf('08006')).toBe('service-unavailable');
    expect(storeFailureProblem(new Error('timeout exceeded when trying to connect'))?.type).toBe(
      'database-busy',
    );
    expect(typeOf('23505')).toBeUndefined();
    expect(storeFailureProblem(new Error('a bug'))).toBeUndefined();
    expect(storeFailureProblem('not an error')).toBeUndefined();
  });

  it('answers a defect with 500 internal, logged once, without leaking the message', async () => {
    const { app, logged } = await build();
    const response = await app.inject({ method: 'GET', url: '/defect' });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('a bug');
    expect(logged.filter((line) => (line as { msg?: string }).msg === 'unexpected error')).toHaveLength(1);
  });

  it('answers unknown routes with 404 not-found', async () => {
    const { app } = await build();
    const response = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ type: '/problems/not-found' });
  });
});
