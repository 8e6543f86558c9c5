import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { createPostgresContractSubject, describeEventStoreContract } from '../testing/index.js';

let db: TestDatabase | undefined;

describeEventStoreContract(
  'postgres',
  async ({ clock }) => {
    db = await createTestDatabase({ poolSize: 12 });
    const subject = await createPostgresContractSubject(db.pool, db.connectionString, clock);
    return {
      ...subject,
      dispose: async () => {
        await subject.store.close();
        await db?.release();
      },
    };
  },
  { semantics: 'strict', clock: 'injected' },
);
