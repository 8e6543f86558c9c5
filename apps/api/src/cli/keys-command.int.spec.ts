import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '@once/postgres';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { apiKeyId, apiKeyMigrations, createApiKeyStore } from '../http/auth/index.js';
import type { ApiKeyRecord, ApiKeyStore } from '../http/auth/index.js';
import { runKeysCommand } from './keys-command.js';

describe('once-keys', () => {
  let db: TestDatabase;
  let store: ApiKeyStore;
  let clock = 1_000_000;

  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runKeysCommand(args, store, {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  beforeAll(async () => {
    db = await createTestDatabase({ poolSize: 4 });
    await migrate(db.pool, 'api', apiKeyMigrations);
    store = createApiKeyStore(db.pool, { cacheTtlMs: 1_000, now: () => clock });
  });
  afterAll(async () => {
    await db.release();
  });

  it('creates a key shown once, lists it by its public id, records its last use, revokes and rotates it', async () => {
    const tenantId = randomUUID();
    const created = await run('create', '--tenant', tenantId, '--label', 'till 1');
    expect(created.code).toBe(0);
    const { apiKey, keyId, actorId } = JSON.parse(created.out) as {
      apiKey: string;
      keyId: string;
      actorId: string;
    };
    expect(apiKey).toMatch(/^once_[\w-]{43}$/);
    expect(keyId).toBe(apiKeyId(apiKey));
    expect(keyId).toMatch(/^key_[0-9a-f]{12}$/);

    const listed = async (): Promise<readonly ApiKeyRecord[]> =>
      JSON.parse((await run('list', '--tenant', tenantId)).out) as ApiKeyRecord[];
    const [fresh] = await listed();
    expect(fresh).toMatchObject({
      keyId,
      tenantId,
      actorId,
      label: 'till 1',
      role: 'staff',
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(await listed())).not.toContain(apiKey);

    expect(await store.findPrincipal(apiKey)).toEqual({ tenantId, actorId, keyId, role: 'staff' });
    expect((await listed())[0]?.lastUsedAt).not.toBeNull();

    const rotated = await run('rotate', keyId);
    expect(rotated.code).toBe(0);
    const next = JSON.parse(rotated.out) as { revoked: string; apiKey: string; keyId: string };
    expect(next.revoked).toBe(keyId);
    // The old key is still cached until its TTL runs out; then it stops.
    expect(await store.findPrincipal(apiKey)).toBeDefined();
    clock += 1_001;
    expect(await store.findPrincipal(apiKey)).toBeUndefined();
    expect(await store.findPrincipal(next.apiKey)).toEqual({
      tenantId,
      actorId,
      keyId: next.keyId,
      role: 'staff',
    });
    const afterRotation = await listed();
    expect(afterRotation.map((key) => [key.keyId, key.label, key.revokedAt === null]).sort()).toEqual(
      [
        [keyId, 'till 1', false],
        [next.keyId, 'till 1', true],
      ].sort(),
    );

    expect((await run('revoke', next.keyId)).code).toBe(0);
    expect((await run('revoke', next.keyId)).code).toBe(1);
    clock += 1_001;
    expect(await store.findPrincipal(next.apiKey)).toBeUndefined();
  });

  it('creates an operator key, and the rotated key keeps its role', async () => {
    const tenantId = randomUUID();
    const created = await run('create', '--tenant', tenantId, '--role', 'operator');
    expect(created.code).toBe(0);
    const { apiKey, keyId, role } = JSON.parse(created.out) as {
      apiKey: string;
      keyId: string;
      role: string;
    };
    expect(role).toBe('operator');
    expect(await store.findPrincipal(apiKey)).toMatchObject({ tenantId, keyId, role: 'operator' });
    const rotated = JSON.parse((await run('rotate', keyId)).out) as { apiKey: string };
    expect(await store.findPrincipal(rotated.apiKey)).toMatchObject({ tenantId, role: 'operator' });
    expect((await run('create', '--role', 'owner')).code).toBe(2);
  });

  it('creates an admin key, which the database accepts since the admin migration', async () => {
    const tenantId = randomUUID();
    const created = await run('create', '--tenant', tenantId, '--role', 'admin', '--label', 'owner');
    expect(created.code).toBe(0);
    const { apiKey, role } = JSON.parse(created.out) as { apiKey: string; role: string };
    expect(role).toBe('admin');
    expect(await store.findPrincipal(apiKey)).toMatchObject({ tenantId, role: 'admin' });
    expect((await run('list', '--tenant', tenantId)).out).toContain('"role": "admin"');
    // The table refuses any other role, whatever writes to it.
    await expect(
      db.pool.query(
        `INSERT INTO api_keys (key_hash, key_id, tenant_id, actor_id, role) VALUES ('\\x00', 'key_000000000000', $1, $1, 'owner')`,
        [tenantId],
      ),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('answers bad usage with the usage and exit code 2', async () => {
    for (const args of [
      [],
      ['launch'],
      ['revoke'],
      ['revoke', 'not-a-key-id'],
      ['create', '--tenant', 'x'],
    ]) {
      const result = await run(...args);
      expect(result.code).toBe(2);
      expect(result.err).toContain('npm run keys -- create');
    }
  });

  it('keeps a bounded number of unknown keys', async () => {
    const bounded = createApiKeyStore(db.pool, { unknownCacheSize: 3, now: () => clock });
    for (let attempt = 0; attempt < 50; attempt++)
      expect(await bounded.findPrincipal(`once_unknown_${attempt}`)).toBeUndefined();
    const tenantId = randomUUID();
    const apiKey = await bounded.create({ tenantId, actorId: randomUUID() });
    // An unknown key that becomes valid is found once the unknown entry is evicted or expires.
    expect(await bounded.findPrincipal(apiKey)).toMatchObject({ tenantId });
  });
});
