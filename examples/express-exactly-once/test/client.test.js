import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { createIdempotentClient } from '@once/client';
import { createFileIntentStorage } from '@once/client/node';
import pg from 'pg';
import { buildApp } from '../src/app.js';

// A till talking to the ledger over real HTTP with @once/client: one key per intent, kept in a file until answered.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
let built;
let server;
let directory;
let client;
before(async () => {
  built = buildApp({ pool });
  server = built.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${server.address().port}`;
  directory = await mkdtemp(join(tmpdir(), 'points-till-'));
  client = createIdempotentClient({
    storage: createFileIntentStorage(join(directory, 'intents.json')),
    baseUrl,
    headers: () => ({ 'x-cashier': 'till-1' }),
  });
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await built.background.stop();
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
  assert.equal(outcome.kind, 'succeeded');
  assert.equal(outcome.body.balance, 25);
  assert.deepEqual(await client.pendingIntents(), []);

  const again = await client.submit(intent);
  assert.equal(again.kind, 'succeeded');
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
  assert.equal(outcome.kind, 'rejected');
  assert.equal(outcome.problem.status, 422);
});
