import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, it } from 'node:test';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { IdempotencyEngineOptions } from '@once/idempotency';
import pg from 'pg';
import { AppModule } from '../src/app.module.js';
import { BackgroundWork } from '../src/background-work.js';

// The completer and retention, as the app wires them: each test calls a round instead of waiting for its timer.
const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'] });
const apps: INestApplication[] = [];
const start = async (engineOptions: Partial<IdempotencyEngineOptions> = {}) => {
  const app = await NestFactory.create(AppModule.over(pool, engineOptions), {
    logger: false,
    abortOnError: false,
  });
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  return { url: await app.getUrl(), background: app.get(BackgroundWork) };
};
after(async () => {
  for (const app of apps) await app.close();
  await pool.end();
});

const earn = (app: { url: string }, memberId: string, key: string) =>
  fetch(`${app.url}/members/${memberId}/earn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-cashier': 'cashier-1' },
    body: JSON.stringify({ points: 40 }),
  });
const balance = async (app: { url: string }, memberId: string): Promise<number> =>
  ((await (await fetch(`${app.url}/members/${memberId}`)).json()) as { balance: number }).balance;

it('finishes a key whose request died half-way, and the retry gets that answer', async () => {
  // An instance that dies right after claiming a key, as a crashed process would, its lease already over.
  const crashing = await start({
    protocol: 'phased',
    leaseMs: 1,
    faults: (point) => {
      if (point === 'after-claim') throw new Error('the process died here');
    },
  });
  const app = await start();
  const member = randomUUID();
  const key = randomUUID();
  assert.equal((await earn(crashing, member, key)).status, 500);
  assert.equal(await balance(app, member), 0);

  const results = await app.background.completeAbandonedKeys();
  assert.ok(results.some((result) => 'outcome' in result && result.outcome.kind === 'first'));
  assert.equal(await balance(app, member), 40);
  const retry = await earn(app, member, key);
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(await balance(app, member), 40, 'earned once');
});

it('forgets a key once its retention has passed, and removes its stream', async () => {
  const app = await start({ retentionSeconds: 0 });
  const key = randomUUID();
  assert.equal((await earn(app, randomUUID(), key)).status, 201);

  const round = await app.background.removeExpiredKeys();
  assert.equal(round.led, true);
  assert.ok(round.removedStreams >= 1, 'the expired key stream is gone');
  // Within its retention the same key for another member would be a 422 (a reused key); past it, it is new.
  const again = await earn(app, randomUUID(), key);
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), null);
});
