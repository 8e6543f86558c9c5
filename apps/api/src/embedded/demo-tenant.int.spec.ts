import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '@once/postgres';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { apiKeyMigrations, createApiKeyStore } from '../http/auth/index.js';
import { demoTenant, revokeDemoKeys, seedDemoTenant } from './demo-tenant.js';

describe('the demo tenant', () => {
  let db: TestDatabase;
  /** The role each demo key signs in with, or `undefined` for a key that does not work. */
  const roles = async (): Promise<Record<string, string | undefined>> => {
    const apiKeys = createApiKeyStore(db.pool, { cacheTtlMs: 0 });
    const signedIn: Record<string, string | undefined> = {};
    for (const actor of demoTenant.actors) {
      const principal = await apiKeys.findPrincipal(actor.apiKey);
      signedIn[actor.name] = principal ? (principal.role ?? 'staff') : undefined;
    }
    return signedIn;
  };
  const seededRoles = { alice: 'staff', bob: 'staff', olga: 'operator', ada: 'admin' };
  const noKeys = { alice: undefined, bob: undefined, olga: undefined, ada: undefined };

  beforeAll(async () => {
    db = await createTestDatabase({ poolSize: 2 });
    await migrate(db.pool, 'api', apiKeyMigrations);
  });
  afterAll(async () => {
    await db.release();
  });

  it('loses its keys on a start that does not seed them, and gets them back with their roles on one that does', async () => {
    expect(await revokeDemoKeys(db.pool)).toBe(0);
    await seedDemoTenant(db.pool);
    expect(await roles()).toEqual(seededRoles);

    expect(await revokeDemoKeys(db.pool)).toBe(demoTenant.actors.length);
    expect(await roles()).toEqual(noKeys);
    expect(await revokeDemoKeys(db.pool)).toBe(0);

    await seedDemoTenant(db.pool);
    expect(await roles()).toEqual(seededRoles);
  });
});
