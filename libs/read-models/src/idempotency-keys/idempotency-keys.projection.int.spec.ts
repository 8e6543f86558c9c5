import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createPostgresEventStore } from '@once/event-store/postgres';
import type { EventStore } from '@once/event-store';
import { foldKeyLog, keyStreamName } from '@once/idempotency/key-log';
import type { KeyLogEvent } from '@once/idempotency/key-log';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import {
  ensureLiveVersion,
  migrateProjectionsSchema,
  physicalTableName,
  rebuildProjection,
  startProjectionRunner,
} from '@once/projections';
import { seededRandom } from '@once/projections/testing';
import {
  getIdempotencyKey,
  idempotencyKeysProjection,
  listAbandonedKeys,
  sweepExpiredKeys,
} from './index.js';
import type { KeySweepCursor } from './index.js';

let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase();
  store = createPostgresEventStore(db.pool);
  await migrateProjectionsSchema(db.pool);
});

afterAll(async () => {
  await store.close();
  await db.release();
});

const fingerprint = (index: number) => ({
  method: 'POST',
  route: '/invoices',
  requestHash: index.toString(16).padStart(64, '0'),
});

/** Writes random but protocol-abiding key logs, interleaved across keys, and returns their stream names. */
const appendKeyLogs = async (
  seed: number,
  tenantId: string,
  keys: number,
): Promise<Map<string, { key: string; actorId: string }>> => {
  const random = seededRandom(seed);
  const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
  const streams = new Map<string, { key: string; actorId: string }>();
  const pending = Array.from({ length: keys }, (_, index) => {
    const actorId = `actor-${index % 3}`;
    const key = `key-${seed}-${index}-abcdefgh`;
    const stream = keyStreamName({ tenantId, actorId }, key);
    streams.set(stream, { key, actorId });
    const events: KeyLogEvent[] = [];
    // About a third of the keys are claimed and completed in one commit (the atomic protocol): one event.
    const atOnce = random() < 0.35;
    if (atOnce) {
      events.push({
        type: 'IdempotencyKeyCompleted',
        data: {
          ...fingerprint(index),
          response: { status: 201, headers: {}, body: `{"id":"${index}"}` },
          holder: 'atomic',
          claim: { tenantId, actorId, key },
        },
      });
    }
    for (let attempt = 0; attempt < 3 && !atOnce; attempt += 1) {
      const holder = `holder-${attempt}`;
      events.push({
        type: 'IdempotencyKeyClaimed',
        data: {
          ...fingerprint(index),
          tenantId,
          actorId,
          key,
          commandType: 'IssueInvoice',
          commandVersion: 1,
          command: { amount: index },
          holder,
          claimedAt: at(attempt),
          leaseExpiresAt: at(attempt + 1),
        },
      });
      const steps = Math.floor(random() * 4);
      for (let step = 0; step < steps; step += 1) {
        const roll = random();
        if (roll < 0.4) {
          events.push({
            type: 'IdempotencyEffectPlanned',
            data: { point: `effect-${step}`, writes: [], holder, leaseExpiresAt: at(attempt + 2) },
          });
        } else if (roll < 0.8) {
          events.push({
            type: 'IdempotencyRecoveryPointReached',
            data: {
              point: `charge-${step}`,
              stage: roll < 0.6 ? 'started' : 'finished',
              holder,
              leaseExpiresAt: at(attempt + 3),
            },
          });
        } else {
          events.push({
            type: 'IdempotencyLeaseTaken',
            data: { holder: `${holder}b`, previousHolder: holder, leaseExpiresAt: at(attempt + 4) },
          });
        }
      }
      const end = random();
      if (end < 0.55) {
        events.push({
          type: 'IdempotencyKeyCompleted',
          data: {
            ...fingerprint(index),
            response: {
              status: 201,
              headers: { location: `/invoices/${index}` },
              body: `{ "id":"${index}",  "total" : 10 }`,
            },
            holder,
          },
        });
        break;
      }
      if (end < 0.8) break;
      events.push({ type: 'IdempotencyKeyReleased', data: { reason: 'gateway-unavailable', holder } });
    }
    return { stream, events, revision: undefined as bigint | undefined };
  });
  while (pending.length > 0) {
    const index = Math.floor(random() * pending.length);
    const next = pending[index] as (typeof pending)[number];
    const take = 1 + Math.floor(random() * 2);
    const events = next.events.splice(0, take);
    const result = await store.appendToStream(
      next.stream,
      events.map((event) => ({ id: crypto.randomUUID(), type: event.type, data: event.data })),
      { expectedRevision: next.revision ?? 'no_stream' },
    );
    next.revision = result.nextExpectedRevision;
    if (next.events.length === 0) pending.splice(index, 1);
  }
  return streams;
};

/** Projects the key logs appended so far into the live key table. */
const catchUpKeyTable = async (): Promise<void> => {
  const live = await ensureLiveVersion(db.pool, idempotencyKeysProjection);
  await startProjectionRunner({
    pool: db.pool,
    store,
    projection: idempotencyKeysProjection,
    version: live.version,
    stopWhenCaughtUp: true,
  }).done;
};

describe('idempotency_keys projection', () => {
  it('holds exactly one row per key, with the status and response the key log folds to', async () => {
    const live = await ensureLiveVersion(db.pool, idempotencyKeysProjection);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 25 }),
        async (seed, keys) => {
          const tenantId = freshTenantId();
          const streams = await appendKeyLogs(seed, tenantId, keys);
          await startProjectionRunner({
            pool: db.pool,
            store,
            projection: idempotencyKeysProjection,
            version: live.version,
            batchSize: 1 + (seed % 40),
            stopWhenCaughtUp: true,
          }).done;

          const count = await db.pool.query<{ count: string }>(
            'SELECT count(*) FROM idempotency_keys WHERE tenant_id = $1',
            [tenantId],
          );
          expect(Number(count.rows[0]?.count)).toBe(streams.size);
          for (const [stream, { key, actorId }] of streams) {
            const events = await store.readStream(stream);
            const state = foldKeyLog(events as unknown as KeyLogEvent[]);
            const row = await getIdempotencyKey(db.pool, { tenantId, actorId, key });
            expect(row?.status).toBe(state.status);
            expect(row?.last_applied_position).toBeDefined();
            if (state.status === 'completed') {
              expect(row?.response_status).toBe(state.response.status);
              expect(row?.response_body).toBe(state.response.body);
            }
            if (state.status === 'inFlight') {
              expect(row?.recovery_point).toBe(state.recoveryPoint);
              expect(row?.holder).toBe(state.holder);
              expect(Date.parse(row?.locked_until ?? '')).toBe(state.leaseExpiresAt);
            }
          }
          expect(
            await getIdempotencyKey(db.pool, {
              tenantId: freshTenantId(),
              actorId: 'actor-0',
              key: `key-${seed}-0-abcdefgh`,
            }),
          ).toBeUndefined();
        },
      ),
      { numRuns: 8 },
    );
  });

  it('lists in-flight keys whose lease has ended, for the completer', async () => {
    const live = await ensureLiveVersion(db.pool, idempotencyKeysProjection);
    const tenantId = freshTenantId();
    const streams = await appendKeyLogs(4242, tenantId, 12);
    await startProjectionRunner({
      pool: db.pool,
      store,
      projection: idempotencyKeysProjection,
      version: live.version,
      stopWhenCaughtUp: true,
    }).done;
    const inFlight: string[] = [];
    for (const stream of streams.keys()) {
      if (foldKeyLog((await store.readStream(stream)) as unknown as KeyLogEvent[]).status === 'inFlight')
        inFlight.push(stream);
    }
    const abandoned = (
      await listAbandonedKeys(db.pool, { now: new Date(Date.UTC(2027, 0, 1)), limit: 10_000 })
    )
      .filter((row) => row.tenant_id === tenantId)
      .map((row) => row.stream);
    expect(abandoned.sort()).toEqual(inFlight.sort());
    const none = (await listAbandonedKeys(db.pool, { now: new Date(Date.UTC(2025, 0, 1)) })).filter(
      (row) => row.tenant_id === tenantId,
    );
    expect(none).toEqual([]);
  });

  it('drops the rows of keys whose stream retention expired, so a rebuild still gives the same table', async () => {
    const live = await ensureLiveVersion(db.pool, idempotencyKeysProjection);
    const tenantId = freshTenantId();
    const streams = [...(await appendKeyLogs(777, tenantId, 10)).keys()];
    await startProjectionRunner({
      pool: db.pool,
      store,
      projection: idempotencyKeysProjection,
      version: live.version,
      stopWhenCaughtUp: true,
    }).done;
    const expired = streams.slice(0, 4);
    for (const stream of expired) await store.setStreamRetention(stream, { truncateBefore: 1_000n });

    expect(
      (await sweepExpiredKeys(db.pool, store, { notUpdatedSince: new Date(Date.UTC(2025, 0, 1)) })).removed,
    ).toBe(0);
    expect(
      (
        await sweepExpiredKeys(db.pool, store, {
          notUpdatedSince: new Date(Date.UTC(2100, 0, 1)),
          limit: 100_000,
        })
      ).removed,
    ).toBe(4);
    const left = await db.pool.query<{ stream: string }>(
      'SELECT stream FROM idempotency_keys WHERE tenant_id = $1',
      [tenantId],
    );
    expect(left.rows.map((row) => row.stream).sort()).toEqual(streams.slice(4).sort());

    const outcome = await rebuildProjection({ pool: db.pool, store, projection: idempotencyKeysProjection });
    const before = physicalTableName(
      idempotencyKeysProjection.tables[0] ?? { name: 'idempotency_keys' },
      live.version,
    );
    const after = physicalTableName(
      idempotencyKeysProjection.tables[0] ?? { name: 'idempotency_keys' },
      outcome.version,
    );
    const difference = await db.pool.query<{ count: string }>(
      `SELECT count(*) FROM ((TABLE ${before} EXCEPT ALL TABLE ${after}) UNION ALL (TABLE ${after} EXCEPT ALL TABLE ${before})) AS d`,
    );
    expect(Number(difference.rows[0]?.count)).toBe(0);
  });

  it('walks past long-lived keys at the front of the sweep instead of checking them again every time', async () => {
    const tenantId = freshTenantId();
    await appendKeyLogs(778, tenantId, 10);
    await catchUpKeyTable();
    const oldestFirst = await db.pool.query<{ stream: string }>(
      'SELECT stream FROM idempotency_keys WHERE tenant_id = $1 ORDER BY updated_at, stream',
      [tenantId],
    );
    const expired = oldestFirst.rows.slice(6).map((row) => row.stream);
    for (const stream of expired) await store.setStreamRetention(stream, { truncateBefore: 1_000n });
    const notUpdatedSince = new Date(Date.UTC(2100, 0, 1));
    let removed = 0;
    let after: KeySweepCursor | undefined;
    let sweeps = 0;
    do {
      const result = await sweepExpiredKeys(db.pool, store, {
        notUpdatedSince,
        limit: 3,
        ...(after ? { after } : {}),
      });
      removed += result.removed;
      after = result.next;
    } while (after !== undefined && ++sweeps < 1_000);
    expect(removed).toBeGreaterThanOrEqual(4);
    const left = await db.pool.query<{ stream: string }>(
      'SELECT stream FROM idempotency_keys WHERE tenant_id = $1',
      [tenantId],
    );
    expect(left.rows.map((row) => row.stream).sort()).toEqual(
      oldestFirst.rows
        .slice(0, 6)
        .map((row) => row.stream)
        .sort(),
    );
  });
});
