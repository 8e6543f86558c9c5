import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../src/app.js';

// DATABASE_URL names a PostgreSQL database the tests may write to (the event store creates its tables).
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
let built;
let server;
let url;
before(async () => {
  built = buildApp({ pool });
  server = built.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${server.address().port}`;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await built.background.stop();
  await pool.end();
});

const command = (memberId, action, body, key = randomUUID()) =>
  fetch(`${url}/members/${memberId}/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-cashier': 'cashier-1' },
    body: JSON.stringify(body),
  });
const balance = async (memberId) => (await (await fetch(`${url}/members/${memberId}`)).json()).balance;

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
    assert.match((await reused.json()).type, /idempotency-key-reused$/);

    const redeemKey = randomUUID();
    const tooMuch = await command(member, 'redeem', { points: 50 }, redeemKey);
    assert.equal(tooMuch.status, 422);
    assert.match((await tooMuch.json()).type, /not-enough-points$/);
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

  it('refuses a command without an Idempotency-Key, and a malformed body, as problems', async () => {
    const noKey = await fetch(`${url}/members/${randomUUID()}/earn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cashier': 'cashier-1' },
      body: JSON.stringify({ points: 1 }),
    });
    assert.equal(noKey.status, 400);
    assert.match(noKey.headers.get('content-type'), /^application\/problem\+json/);
    const broken = await fetch(`${url}/members/${randomUUID()}/earn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), 'x-cashier': 'c' },
      body: '{"points":',
    });
    assert.equal(broken.status, 400);
    assert.match(broken.headers.get('content-type'), /^application\/problem\+json/);
  });
});
