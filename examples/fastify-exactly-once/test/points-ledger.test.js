import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../src/app.js';

// DATABASE_URL names a PostgreSQL database the tests may write to (the event store creates its tables).
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
let app;
before(async () => {
  app = await buildApp({ pool });
});
after(async () => {
  await app.close();
  await pool.end();
});

const command = (memberId, action, body, key = randomUUID()) =>
  app.inject({
    method: 'POST',
    url: `/members/${memberId}/${action}`,
    headers: { 'idempotency-key': key, 'x-cashier': 'cashier-1' },
    payload: body,
  });
const balance = async (memberId) => (await app.inject(`/members/${memberId}`)).json().balance;

describe('points ledger', () => {
  it('replays a retried command: same answer, points earned once', async () => {
    const member = randomUUID();
    const key = randomUUID();
    const first = await command(member, 'earn', { points: 40 }, key);
    const retry = await command(member, 'earn', { points: 40 }, key);
    assert.equal(first.statusCode, 201);
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body, first.body);
    assert.equal(await balance(member), 40);
  });

  it('answers 422 to a key reused for another body, and stores a business rejection', async () => {
    const member = randomUUID();
    const key = randomUUID();
    await command(member, 'earn', { points: 10 }, key);
    const reused = await command(member, 'earn', { points: 99 }, key);
    assert.equal(reused.statusCode, 422);
    assert.match(reused.json().type, /idempotency-key-reused$/);

    const redeemKey = randomUUID();
    const tooMuch = await command(member, 'redeem', { points: 50 }, redeemKey);
    assert.equal(tooMuch.statusCode, 422);
    assert.match(tooMuch.json().type, /not-enough-points$/);
    await command(member, 'earn', { points: 100 });
    const replayed = await command(member, 'redeem', { points: 50 }, redeemKey);
    assert.equal(replayed.statusCode, 422, 'the stored rejection is the answer for that key');
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.equal(await balance(member), 110);
  });

  it('runs concurrent duplicates once', async () => {
    const member = randomUUID();
    await command(member, 'earn', { points: 100 });
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => command(member, 'redeem', { points: 70 }, key)),
    );
    const done = answers.filter((answer) => answer.statusCode === 201);
    const busy = answers.filter((answer) => answer.statusCode === 409);
    assert.ok(done.length >= 1, 'one of them redeemed');
    assert.equal(done.length + busy.length, answers.length, 'the others replayed or were told to retry');
    assert.equal(new Set(done.map((answer) => answer.body)).size, 1, 'every success is the same answer');
    assert.equal(await balance(member), 30);
  });

  it('refuses a command without an Idempotency-Key', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/members/${randomUUID()}/earn`,
      headers: { 'x-cashier': 'cashier-1' },
      payload: { points: 1 },
    });
    assert.equal(response.statusCode, 400);
  });
});
