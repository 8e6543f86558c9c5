import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { createEventSourcedChargeLedger } from './event-sourced-charge-ledger.js';
import type { ChargeLedger } from './charge-ledger.js';

let db: TestDatabase;
let ledger: ChargeLedger;

beforeAll(async () => {
  db = await createTestDatabase();
  ledger = createEventSourcedChargeLedger(createPostgresEventStore(db.pool));
});

afterAll(async () => {
  await db?.release();
});

const request = (reference: string) => ({ reference, amount: 990, currency: 'EUR', cardToken: 'tok_visa' });

describe('the gateway ledger on the idempotency engine and PostgreSQL', () => {
  it('charges once for concurrent requests with one key, and the inquiry finds that one charge', async () => {
    const key = `payment:${randomUUID()}`;
    const reference = randomUUID();
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () =>
        ledger.charge({ merchant: 'm1', key, request: request(reference), now: new Date() }),
      ),
    );
    const charges = outcomes.flatMap((outcome) => ('charge' in outcome ? [outcome.charge] : []));
    expect(new Set(charges.map((charge) => charge.id)).size).toBe(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'created')).toHaveLength(1);
    expect(await ledger.findByReference('m1', reference)).toEqual([charges[0]]);
  });

  it('keeps keys apart per merchant and refuses a key reused for another charge', async () => {
    const key = randomUUID();
    const first = await ledger.charge({ merchant: 'm1', key, request: request('a'), now: new Date() });
    const otherMerchant = await ledger.charge({
      merchant: 'm2',
      key,
      request: request('a'),
      now: new Date(),
    });
    expect(first.kind).toBe('created');
    expect(otherMerchant.kind).toBe('created');
    expect((await ledger.charge({ merchant: 'm1', key, request: request('b'), now: new Date() })).kind).toBe(
      'key-reused',
    );
    expect(await ledger.findByReference('m2', randomUUID())).toEqual([]);
  });
});
