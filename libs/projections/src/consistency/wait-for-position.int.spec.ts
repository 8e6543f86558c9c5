import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPosition } from '@once/event-store';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { migrateProjectionsSchema } from '../schema/index.js';
import { ledgerProjection } from '../testing/index.js';
import { ensureLiveVersion } from '../versions/index.js';
import { waitForPosition } from './index.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await migrateProjectionsSchema(db.pool);
});

afterAll(async () => {
  await db.release();
});

const moveCheckpoint = async (version: number, commit: bigint) =>
  db.pool.query('UPDATE projection_checkpoints SET position = $3 WHERE name = $1 AND version = $2', [
    'ledger',
    version,
    formatPosition({ commit, prepare: 1n }),
  ]);

describe('waitForPosition', () => {
  it('answers at once when the live version is past the position, waits while it catches up, and gives up at the bound', async () => {
    expect(await waitForPosition(db.pool, 'ledger', { commit: 1n, prepare: 1n }, { timeoutMs: 20 })).toEqual({
      reached: false,
      checkpoint: null,
    });
    const live = await ensureLiveVersion(db.pool, ledgerProjection());
    expect(
      (await waitForPosition(db.pool, 'ledger', { commit: 1n, prepare: 1n }, { timeoutMs: 20 })).reached,
    ).toBe(false);

    await moveCheckpoint(live.version, 10n);
    expect(await waitForPosition(db.pool, 'ledger', { commit: 10n, prepare: 1n })).toEqual({
      reached: true,
      checkpoint: formatPosition({ commit: 10n, prepare: 1n }),
    });
    expect(
      await waitForPosition(db.pool, 'ledger', formatPosition({ commit: 9n, prepare: 5n })),
    ).toMatchObject({ reached: true });

    const behind = await waitForPosition(db.pool, 'ledger', { commit: 11n, prepare: 0n }, { timeoutMs: 50 });
    expect(behind).toEqual({ reached: false, checkpoint: formatPosition({ commit: 10n, prepare: 1n }) });

    const waiting = waitForPosition(db.pool, 'ledger', { commit: 12n, prepare: 0n }, { timeoutMs: 10_000 });
    setTimeout(() => void moveCheckpoint(live.version, 12n), 100);
    expect(await waiting).toMatchObject({ reached: true });
  });
});
