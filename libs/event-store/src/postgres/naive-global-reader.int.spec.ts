import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import type { ContractSubject } from '../testing/index.js';
import {
  assertLateCommitProperty,
  createNaiveGlobalReader,
  createPostgresContractSubject,
  lateCommitExample,
  runLateCommitScenario,
} from '../testing/index.js';

describe('the late-commit property catches a reader ordered by global_position alone', () => {
  let db: TestDatabase;
  let subject: ContractSubject;

  beforeAll(async () => {
    db = await createTestDatabase();
    subject = await createPostgresContractSubject(db.pool, db.connectionString);
  });
  afterAll(async () => {
    await subject.store.close();
    await db.release();
  });

  it('the real reader passes the late-commit scenario', async () => {
    await runLateCommitScenario(subject, lateCommitExample);
  });

  it('the naive reader misses the event that committed late', async () => {
    await expect(
      runLateCommitScenario(subject, lateCommitExample, createNaiveGlobalReader(db.pool), 500),
    ).rejects.toThrow(/missed 1 of 2/);
  });

  it('the property test fails against the naive reader', async () => {
    await expect(
      assertLateCommitProperty(subject, {
        numRuns: 5,
        readAll: createNaiveGlobalReader(db.pool),
        settleMs: 500,
      }),
    ).rejects.toThrow(/Property failed/);
  });
});
