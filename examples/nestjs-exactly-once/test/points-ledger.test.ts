import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pg from 'pg';
import { AppModule } from '../src/app.module.js';

// DATABASE_URL names a PostgreSQL database the tests may write to (the event store creates its tables).
const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'] });
let app: INestApplication;
let url: string;
before(async () => {
  app = await NestFactory.create(AppModule.over(pool), { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  url = await app.getUrl();
});
after(async () => {
  await app.close();
  await pool.end();
});

const command = (memberId: string, action: string, body: unknown, key: string = randomUUID()) =>
  fetch(`${url}/members/${memberId}/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-cashier': 'cashier-1' },
    body: JSON.stringify(body),
  });
const balance = async (memberId: string): Promise<number> =>
  ((await (await fetch(`${url}/members/${memberId}`)).json()) as { balance: number }).balance;
const problemType = async (response: Response): Promise<string> =>
  ((await response.json()) as { type: string }).type;

describe('points ledger', () => {
  it('replays a retried command: same answer, points earned once', async () => {
    const member = randomUUID();
    const key = randomUUID();
    const first = await command(member, 'earn', { points: 40 }, key);
    const retry = await command(member, 'earn', { points: 40 }, key);
    assert.equal(first.status, 201);
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(await retry.text(), await first.text());
    assert.equal(await balance(member), 40);
  });

  it('answers 422 to a key reused for another body, and stores a business rejection', async () => {
    const member = randomUUID();
    const key = randomUUID();
    await command(member, 'earn', { points: 10 }, key);
    const reused = await command(member, 'earn', { points: 99 }, key);
    assert.equal(reused.status, 422);
    assert.match(await problemType(reused), /idempotency-key-reused$/);

    const redeemKey = randomUUID();
    const tooMuch = await command(member, 'redeem', { points: 50 }, redeemKey);
    assert.equal(tooMuch.status, 422);
    assert.match(await problemType(tooMuch), /not-enough-points$/);
    await command(member, 'earn', { points: 100 });
    const replayed = await command(member, 'redeem', { points: 50 }, redeemKey);
    assert.equal(replayed.status, 422, 'the stored rejection is the answer for that key');
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.equal(await balance(member), 110);
  });

  it('runs concurrent duplicates once', async () => {
    const member = randomUUID();
    await command(member, 'earn', { points: 100 });
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const response = await command(member, 'redeem', { points: 70 }, key);
        return { status: response.status, body: await response.text() };
      }),
    );
    const done = answers.filter((answer) => answer.status === 201);
    const busy = answers.filter((answer) => answer.status === 409);
    assert.ok(done.length >= 1, 'one of them redeemed');
    assert.equal(done.length + busy.length, answers.length, 'the others replayed or were told to retry');
    assert.equal(new Set(done.map((answer) => answer.body)).size, 1, 'every success is the same answer');
    assert.equal(await balance(member), 30);
  });

  it('refuses a command without an Idempotency-Key with a 400 problem', async () => {
    const response = await fetch(`${url}/members/${randomUUID()}/earn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cashier': 'cashier-1' },
      body: JSON.stringify({ points: 1 }),
    });
    assert.equal(response.status, 400);
    assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });
});
