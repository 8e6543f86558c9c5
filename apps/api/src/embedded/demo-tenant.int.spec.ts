import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '@once/postgres';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { apiKeyMigrations, createApiKeyStore } from '../auth/index.js';
import { demoTenant, revokeDemoKeys, seedDemoTenant } from './demo-tenant.js';

describe('the demo tenant', () => {
  let db: TestDatabase;
  const [alice, bob] = demoTenant.actors;
  const works = async (apiKey: string): Promise<boolean> =>
    (await createApiKeyStore(db.pool, { cacheTtlMs: 0 }).findPrincipal(apiKey)) !== undefined;

  beforeAll(async () => {
    db = await createTestDatabase({ poolSize: 2 });
    await migrate(db.pool, 'api', apiKeyMigrations);
  });
  afterAll(async () => {
    await db.release();
  });

  it('loses its keys on a start that does not seed them, and gets them back on one that does', async () => {
    expect(await revokeDemoKeys(db.pool)).toBe(0);
    await seedDemoTenant(db.pool);
    expect(await works(alice.apiKey)).toBe(true);
    expect(await works(bob.apiKey)).toBe(true);

    expect(await revokeDemoKeys(db.pool)).toBe(2);
    expect(await works(alice.apiKey)).toBe(false);
    expect(await works(bob.apiKey)).toBe(false);
    expect(await revokeDemoKeys(db.pool)).toBe(0);

    await seedDemoTenant(db.pool);
    expect(await works(alice.apiKey)).toBe(true);
    expect(await works(bob.apiKey)).toBe(true);
  });
});
