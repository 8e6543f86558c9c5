import pg from 'pg';
import { createPostgresEventStore, migrateEventStore } from '../postgres/index.js';
import { appendOnClient } from '../postgres/postgres-append.js';
import type { TestClock } from './contract-fixtures.js';
import type { ContractSubject } from './contract-subject.js';

/**
 * The PostgreSQL adapter as a contract subject: the store on `pool`, and held appends on a second connection
 * whose transaction stays open until `commit`.
 *
 * @example
 * const subject = await createPostgresContractSubject(db.pool, db.connectionString, clock);
 */
export const createPostgresContractSubject = async (
  pool: pg.Pool,
  connectionString: string,
  clock?: TestClock,
): Promise<ContractSubject> => {
  await migrateEventStore(pool);
  const store = createPostgresEventStore(pool, { migrate: false, ...(clock ? { now: clock.now } : {}) });
  return {
    store,
    beginHeldAppend: async (stream, events) => {
      const client = new pg.Client({ connectionString });
      await client.connect();
      try {
        await client.query('BEGIN');
        const outcome = await appendOnClient(client, stream, events, 'no_stream', clock ? clock.now() : null);
        if (outcome.kind === 'wrong') throw outcome.error;
      } catch (error) {
        await client.end();
        throw error;
      }
      return {
        commit: async () => {
          try {
            await client.query('COMMIT');
          } finally {
            await client.end();
          }
        },
      };
    },
  };
};
