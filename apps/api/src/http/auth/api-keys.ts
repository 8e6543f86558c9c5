import { hash as digest, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Pool, PoolClient } from 'pg';
import type { Migration } from '@once/postgres';
import { onceDefaults } from '@once/settings';

/**
 * What a key may do, each role all the one before it may: `staff` (the till: orders, payments, stock counts, reads of
 * them and of its own idempotency keys), `operator` (also the console's `/ops` reads and resolving card payments that
 * need attention), `admin` (also what configures the tenant: webhook endpoints and deliveries, menu prices). Each
 * route declares the least role that may call it (`config: { role }`, see `route-roles.ts`).
 */
export const apiKeyRoles = ['staff', 'operator', 'admin'] as const;
export type ApiKeyRole = (typeof apiKeyRoles)[number];

/** Who is calling: every read and write is scoped to the tenant; idempotency keys to tenant and actor. */
export interface Principal {
  readonly tenantId: string;
  readonly actorId: string;
  /** `staff` when absent. */
  readonly role?: ApiKeyRole;
  /** The public id of the API key used (`key_…`): safe to log and to show in audits. */
  readonly keyId?: string;
}

/** An API key as listed: never the key itself. */
export interface ApiKeyRecord {
  readonly keyId: string;
  readonly tenantId: string;
  readonly actorId: string;
  readonly label: string;
  readonly role: ApiKeyRole;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** The `api_keys` table: only the SHA-256 of each key is stored, so a database dump grants nothing. */
export const apiKeyMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'api keys',
    sql: `CREATE TABLE api_keys (
      key_hash   bytea PRIMARY KEY,
      tenant_id  uuid NOT NULL,
      actor_id   uuid NOT NULL,
      label      text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );
    CREATE INDEX api_keys_by_actor ON api_keys (tenant_id, actor_id);`,
  },
  {
    version: 2,
    name: 'api key ids and last use',
    // The public id is derived from the hash (a prefix of the SHA-256 of 32 random bytes reveals nothing).
    sql: `ALTER TABLE api_keys ADD COLUMN key_id text, ADD COLUMN last_used_at timestamptz;
    UPDATE api_keys SET key_id = 'key_' || substr(encode(key_hash, 'hex'), 1, 12);
    ALTER TABLE api_keys ALTER COLUMN key_id SET NOT NULL;
    CREATE UNIQUE INDEX api_keys_by_key_id ON api_keys (key_id);`,
  },
  {
    version: 3,
    name: 'api key roles',
    sql: `ALTER TABLE api_keys ADD COLUMN role text NOT NULL DEFAULT 'staff'
      CONSTRAINT api_keys_role CHECK (role IN ('staff', 'operator'));`,
  },
  {
    version: 4,
    name: 'api key admin role',
    sql: `ALTER TABLE api_keys DROP CONSTRAINT api_keys_role,
      ADD CONSTRAINT api_keys_role CHECK (role IN ('staff', 'operator', 'admin'));`,
  },
];

/** The SHA-256 of an API key, as stored. */
export const hashApiKey = (apiKey: string): Buffer => digest('sha256', apiKey, 'buffer');

/** The public id of an API key: `key_` and the first 12 hex digits of its SHA-256. */
export const apiKeyId = (apiKey: string): string => `key_${hashApiKey(apiKey).toString('hex').slice(0, 12)}`;

/** A new random API key: `once_` and 32 random bytes in base64url. */
export const generateApiKey = (): string => `once_${randomBytes(32).toString('base64url')}`;

/** Creates, looks up, lists, revokes and rotates API keys. */
export interface ApiKeyStore {
  /** Stores the hash of `apiKey` (a fresh random key when omitted) for the principal; returns the key, shown once. */
  create(
    principal: Omit<Principal, 'keyId'> & { readonly label?: string; readonly apiKey?: string },
  ): Promise<string>;
  /** The principal of a live key, or undefined. */
  findPrincipal(apiKey: string): Promise<Principal | undefined>;
  /** Every key, newest first; one tenant's when given. */
  list(filter?: { readonly tenantId?: string }): Promise<readonly ApiKeyRecord[]>;
  /** Revokes a key by its public id; false when there is no live key with that id. */
  revoke(keyId: string): Promise<boolean>;
  /** A new key for the same tenant, actor, label and role, and the old one revoked, in one transaction. */
  rotate(keyId: string): Promise<{ readonly apiKey: string; readonly keyId: string } | undefined>;
}

export interface ApiKeyStoreOptions {
  /** How long a lookup is trusted (ms): a revoked key stops working within it. `ONCE_API_KEY_CACHE_TTL_MS`'s default when omitted. */
  readonly cacheTtlMs?: number;
  /** Live keys kept in the cache, least recently used first out. Default 10,000. */
  readonly cacheSize?: number;
  /** Unknown keys remembered (so a burst of one bad key costs one query), least recently used first out. Default 1,000. */
  readonly unknownCacheSize?: number;
  /** `last_used_at` is written at most once per this period per key (ms). Default 60,000. */
  readonly lastUsedResolutionMs?: number;
  /** The cache's clock (ms, monotonic); `performance.now` by default. */
  readonly now?: () => number;
}

interface KeyRow {
  key_id: string;
  tenant_id: string;
  actor_id: string;
  label: string;
  role: ApiKeyRole;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const toRecord = (row: KeyRow): ApiKeyRecord => ({
  keyId: row.key_id,
  tenantId: row.tenant_id,
  actorId: row.actor_id,
  label: row.label,
  role: row.role,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

/**
 * API keys in PostgreSQL (`api_keys`, see `apiKeyMigrations`). Lookups are cached in two bounded LRUs (live keys,
 * unknown keys) for `cacheTtlMs`, so a revoked key stops working within it; a lookup that reaches the database also
 * records when the key was last used. The database holds only keys' SHA-256; the live cache, in this process's
 * memory, holds a key as presented, so a live key is hashed once per cache period rather than on every request.
 * Unknown keys are remembered by their hash: a caller's guesses are never kept.
 *
 * @example
 * const keys = createApiKeyStore(pool);
 * const apiKey = await keys.create({ tenantId, actorId, label: 'till 1' });
 */
export const createApiKeyStore = (pool: Pool, options: ApiKeyStoreOptions = {}): ApiKeyStore => {
  const ttl = options.cacheTtlMs ?? onceDefaults.ONCE_API_KEY_CACHE_TTL_MS;
  const perf = options.now ? { now: options.now } : performance;
  const live = new LRUCache<string, Principal>({
    max: options.cacheSize ?? 10_000,
    ttl,
    perf,
    ttlResolution: 0,
  });
  const unknown = new LRUCache<string, true>({
    max: options.unknownCacheSize ?? 1_000,
    ttl,
    perf,
    ttlResolution: 0,
  });
  const resolutionSeconds = (options.lastUsedResolutionMs ?? 60_000) / 1000;

  const insert = async (
    db: Pool | PoolClient,
    {
      tenantId,
      actorId,
      label,
      role,
      apiKey,
    }: { tenantId: string; actorId: string; label: string; role: ApiKeyRole; apiKey: string },
  ): Promise<void> => {
    await db.query(
      `INSERT INTO api_keys (key_hash, key_id, tenant_id, actor_id, label, role) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (key_hash) DO NOTHING`,
      [hashApiKey(apiKey), apiKeyId(apiKey), tenantId, actorId, label, role],
    );
  };

  return {
    create: async ({ tenantId, actorId, label = '', role = 'staff', apiKey = generateApiKey() }) => {
      await insert(pool, { tenantId, actorId, label, role, apiKey });
      return apiKey;
    },
    findPrincipal: async (apiKey) => {
      const cached = live.get(apiKey);
      if (cached) return cached;
      const hash = hashApiKey(apiKey);
      const unknownKey = hash.toString('base64');
      if (unknown.has(unknownKey)) return undefined;
      const { rows } = await pool.query<{
        tenant_id: string;
        actor_id: string;
        key_id: string;
        role: ApiKeyRole;
      }>(
        `WITH hit AS (
           SELECT key_hash, tenant_id, actor_id, key_id, role, last_used_at FROM api_keys
            WHERE key_hash = $1 AND revoked_at IS NULL
         ), touched AS (
           UPDATE api_keys k SET last_used_at = now() FROM hit
            WHERE k.key_hash = hit.key_hash
              AND (hit.last_used_at IS NULL OR hit.last_used_at < now() - make_interval(secs => $2))
         )
         SELECT tenant_id, actor_id, key_id, role FROM hit`,
        [hash, resolutionSeconds],
      );
      const row = rows[0];
      if (!row) {
        unknown.set(unknownKey, true);
        return undefined;
      }
      const principal = {
        tenantId: row.tenant_id,
        actorId: row.actor_id,
        keyId: row.key_id,
        role: row.role,
      };
      live.set(apiKey, principal);
      return principal;
    },
    list: async (filter = {}) => {
      const { rows } = await pool.query<KeyRow>(
        `SELECT key_id, tenant_id, actor_id, label, role, created_at, last_used_at, revoked_at FROM api_keys
          WHERE $1::uuid IS NULL OR tenant_id = $1::uuid ORDER BY created_at DESC, key_id`,
        [filter.tenantId ?? null],
      );
      return rows.map(toRecord);
    },
    revoke: async (keyId) => {
      const result = await pool.query(
        'UPDATE api_keys SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL',
        [keyId],
      );
      return (result.rowCount ?? 0) > 0;
    },
    rotate: async (keyId) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<KeyRow>(
          `UPDATE api_keys SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL
           RETURNING key_id, tenant_id, actor_id, label, role, created_at, last_used_at, revoked_at`,
          [keyId],
        );
        const old = rows[0];
        if (!old) {
          await client.query('ROLLBACK');
          return undefined;
        }
        const apiKey = generateApiKey();
        await insert(client, {
          tenantId: old.tenant_id,
          actorId: old.actor_id,
          label: old.label,
          role: old.role,
          apiKey,
        });
        await client.query('COMMIT');
        return { apiKey, keyId: apiKeyId(apiKey) };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
};
