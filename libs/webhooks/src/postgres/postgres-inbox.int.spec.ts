import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { migrateWebhookInbox, receiveWebhookOnce } from './postgres-inbox.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await migrateWebhookInbox(db.pool);
  await db.pool.query('CREATE TABLE tickets (webhook_id text NOT NULL, note text NOT NULL)');
});

afterAll(async () => {
  await db?.release();
});

const addTicket = (webhookId: string, consumer = 'kitchen') =>
  receiveWebhookOnce(db.pool, { consumer, webhookId }, async (client) => {
    await client.query('INSERT INTO tickets (webhook_id, note) VALUES ($1, $2)', [webhookId, consumer]);
    return webhookId;
  });

const ticketsOf = async (webhookId: string) =>
  (await db.pool.query('SELECT note FROM tickets WHERE webhook_id = $1', [webhookId])).rows;

describe('receiveWebhookOnce', () => {
  it('applies an id once however often and however concurrently it is delivered', async () => {
    const receipts = await Promise.all(Array.from({ length: 8 }, () => addTicket('msg-concurrent')));
    expect(receipts.filter((receipt) => receipt.outcome === 'applied')).toEqual([
      { outcome: 'applied', result: 'msg-concurrent' },
    ]);
    expect(await addTicket('msg-concurrent')).toEqual({ outcome: 'duplicate' });
    expect(await ticketsOf('msg-concurrent')).toHaveLength(1);
  });

  it('keeps one inbox per consumer', async () => {
    expect((await addTicket('msg-shared', 'kitchen')).outcome).toBe('applied');
    expect((await addTicket('msg-shared', 'accounting')).outcome).toBe('applied');
    expect(await ticketsOf('msg-shared')).toHaveLength(2);
  });

  it('claims nothing when the effect fails, so the redelivery applies it', async () => {
    await expect(
      receiveWebhookOnce(db.pool, { consumer: 'kitchen', webhookId: 'msg-failing' }, async (client) => {
        await client.query("INSERT INTO tickets (webhook_id, note) VALUES ('msg-failing', 'half')");
        throw new Error('the effect failed');
      }),
    ).rejects.toThrow('the effect failed');
    expect(await ticketsOf('msg-failing')).toHaveLength(0);
    expect((await addTicket('msg-failing')).outcome).toBe('applied');
    expect(await ticketsOf('msg-failing')).toEqual([{ note: 'kitchen' }]);
  });
});
