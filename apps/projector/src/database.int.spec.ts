import { startEmbeddedPostgres } from '@once/postgres';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { resolveDatabase } from './database.js';

describe('the projector finds its database', () => {
  it('joins the embedded server already running on its data folder the way that server is reached', async () => {
    const server = await startEmbeddedPostgres({ ephemeral: true });
    try {
      const database = await resolveDatabase({ dataDirectory: server.dataDirectory });
      expect(database.source).toBe('embedded (already running)');
      expect(database.connectionString).toBe(server.connectionString);
      const client = new pg.Client({ connectionString: database.connectionString });
      await client.connect();
      try {
        const { rows } = await client.query<{ answer: number }>('SELECT 1 AS answer');
        expect(rows).toEqual([{ answer: 1 }]);
      } finally {
        await client.end();
      }
      await database.stop();
    } finally {
      await server.stop();
    }
  });

  it('takes DATABASE_URL as it is given', async () => {
    const database = await resolveDatabase({ databaseUrl: 'postgres://someone@db.example/once' });
    expect(database).toMatchObject({
      source: 'DATABASE_URL',
      connectionString: 'postgres://someone@db.example/once',
    });
  });
});
