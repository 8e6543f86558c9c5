import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { problemDetailsPlugin } from '../plugins/problem-details.plugin.js';
import { problemCatalog, problemOfError } from '@once/cafe';

let db: TestDatabase;
let tinyPool: pg.Pool;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  tinyPool = new pg.Pool({
    connectionString: db.connectionString,
    max: 1,
    connectionTimeoutMillis: 200,
    idleTimeoutMillis: 0,
  });
  // Its one connection is made here (retried on a busy machine), so the route only ever waits for a free one.
  for (let attempt = 0; ; attempt++) {
    const warmed = await tinyPool.query('SELECT 1').then(
      () => true,
      (error: unknown) => {
        if (attempt >= 20) throw error;
        return false;
      },
    );
    if (warmed) break;
  }
  app = Fastify({ logger: false });
  await app.register(problemDetailsPlugin, { catalog: problemCatalog, problemOf: problemOfError });
  app.get('/statement-timeout', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL statement_timeout = '20ms'`);
      await client.query('SELECT pg_sleep(2)');
      return {};
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  });
  app.get('/read-only', async () => {
    const client = await db.pool.connect();
    try {
      await client.query(`SET default_transaction_read_only = on`);
      await client.query('CREATE TABLE never_made (id int)');
      return {};
    } finally {
      await client.query(`RESET default_transaction_read_only`);
      client.release();
    }
  });
  app.get('/pool-exhausted', async () => {
    const holder = await tinyPool.connect();
    try {
      await tinyPool.query('SELECT 1');
      return {};
    } finally {
      holder.release();
    }
  });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await tinyPool?.end();
  await db?.release();
});

describe('store failures from a real PostgreSQL', () => {
  it.each([
    ['/statement-timeout', 'statement-timeout', '2'],
    ['/read-only', 'database-read-only', '10'],
    ['/pool-exhausted', 'database-busy', '1'],
  ])('%s answers 503 %s with Retry-After %s', async (url, type, retryAfter) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe(retryAfter);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json()).toMatchObject({ type: `/problems/${type}`, status: 503 });
  });
});
