import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { putDemoMenu, useTestApi } from '../../testing/index.js';

const env = useTestApi();

beforeAll(async () => {
  await putDemoMenu(env.api.url, env.tenant.ada);
});

/** Makes every write to the log fail in PostgreSQL itself with this SQLSTATE, until the returned function is called. */
const failWritesWith = async (sqlState: string): Promise<() => Promise<void>> => {
  const name = `refuse_${sqlState.toLowerCase()}`;
  await env.db.pool.query(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'simulated failure' USING ERRCODE = '${sqlState}'; END $$;
    CREATE TRIGGER ${name} BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION ${name}();`);
  return async () => {
    await env.db.pool.query(`DROP TRIGGER ${name} ON events; DROP FUNCTION ${name}();`);
  };
};

const placeOrder = (key: string) =>
  env.http.post('/orders', {
    apiKey: env.tenant.alice,
    key,
    body: { currency: 'EUR', lines: [{ sku: 'espresso', quantity: 1 }] },
  });

describe('a keyed command when the database cannot write', () => {
  it.each([
    ['53100', 'storage-full', '60'],
    ['25006', 'database-read-only', '10'],
  ])(
    'SQLSTATE %s answers 503 %s with Retry-After %s, stores nothing, and the same key works later',
    async (sqlState, type, retryAfter) => {
      const key = randomUUID();
      const restore = await failWritesWith(sqlState);
      const refused = await placeOrder(key).finally(restore);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe(retryAfter);
      expect(refused.json()).toMatchObject({ type: `/problems/${type}`, status: 503 });

      const retried = await placeOrder(key);
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
    },
  );
});
