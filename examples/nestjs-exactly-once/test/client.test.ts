import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createIdempotentClient } from '@once/client';
import { createFileIntentStorage } from '@once/client/node';
import pg from 'pg';
import { AppModule } from '../src/app.module.js';

// A till talking to the ledger over real HTTP with @once/client: one key per intent, kept in a file until answered.
const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'] });
let app: INestApplication;
let directory: string;
let client: ReturnType<typeof createIdempotentClient>;
before(async () => {
  app = await NestFactory.create(AppModule.over(pool), { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  directory = await mkdtemp(join(tmpdir(), 'points-till-'));
  client = createIdempotentClient({
    storage: createFileIntentStorage(join(directory, 'intents.json')),
    baseUrl: await app.getUrl(),
    headers: () => ({ 'x-cashier': 'till-1' }),
  });
});
after(async () => {
  await app.close();
  await pool.end();
  await rm(directory, { recursive: true, force: true });
});

it('earns points through @once/client, and a resubmitted intent is the same answer', async () => {
  const member = randomUUID();
  const intent = await client.createIntent({
    method: 'POST',
    path: `/members/${member}/earn`,
    body: { points: 25 },
  });
  const outcome = await client.submit(intent);
  assert.ok(outcome.kind === 'succeeded');
  assert.equal((outcome.body as { balance: number }).balance, 25);
  assert.deepEqual(await client.pendingIntents(), []);

  const again = await client.submit(intent);
  assert.ok(again.kind === 'succeeded');
  assert.equal(again.replayed, true);
  assert.deepEqual(again.body, outcome.body);
});

it('reports a business rejection as a value', async () => {
  const intent = await client.createIntent({
    method: 'POST',
    path: `/members/${randomUUID()}/redeem`,
    body: { points: 5 },
  });
  const outcome = await client.submit(intent);
  assert.ok(outcome.kind === 'rejected');
  assert.equal(outcome.problem.status, 422);
});
