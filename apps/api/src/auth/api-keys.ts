import { createHash, randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Migration } from '@once/postgres';

/** Who is calling: every read and write is scoped to the tenant; idempotency keys to tenant and actor. */
export interface Principal {
  readonly tenantId: string;
  readonly actorId: string;
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
];

/** The SHA-256 of an API key, as stored. */
export const hashApiKey = (apiKey: string): Buffer => createHash('sha256').update(apiKey, 'utf8').digest();

/** A new random API key: `once_` and 32 random bytes in base64url. */
export const generateApiKey = (): string => `once_${randomBytes(32).toString('base64url')}`;

/** Creates and looks up API keys. */
export interface ApiKeyStore {
  /** Stores the hash of `apiKey` (a fresh random key when omitted) for the principal; returns the key, shown once. */
  create(principal: Principal & { readonly label?: string; readonly apiKey?: string }): Promise<string>;
  /** The principal of a live key, or undefined. */
  findPrincipal(apiKey: string): Promise<Principal | undefined>;
}

/**
 * API keys in PostgreSQL (`api_keys`, see `apiKeyMigrations`). Lookups are cached for a few seconds, so a revoked key
 * stops working within `cacheTtlMs`.
 *
 * @example
 * const keys = createApiKeyStore(pool);
 * const apiKey = await keys.create({ tenantId, actorId, label: 'till 1' });
 */
export const createApiKeyStore = (
  pool: Pool,
  options: { cacheTtlMs?: number; now?: () => number } = {},
): ApiKeyStore => {
  const cacheTtlMs = options.cacheTtlMs ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { principal: Principal | undefined; expiresAt: number }>();
  return {
    create: async ({ tenantId, actorId, label = '', apiKey = generateApiKey() }) => {
      await pool.query(
        `INSERT INTO api_keys (key_hash, tenant_id, actor_id, label) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key_hash) DO NOTHING`,
        [hashApiKey(apiKey), tenantId, actorId, label],
      );
      return apiKey;
    },
    findPrincipal: async (apiKey) => {
      const hash = hashApiKey(apiKey);
      const cacheKey = hash.toString('base64');
      const cached = cache.get(cacheKey);
      if (cached && cached.expiresAt > now()) return cached.principal;
      const { rows } = await pool.query<{ tenant_id: string; actor_id: string }>(
        'SELECT tenant_id, actor_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
        [hash],
      );
      const row = rows[0];
      const principal = row ? { tenantId: row.tenant_id, actorId: row.actor_id } : undefined;
      if (cache.size >= 10_000) cache.clear();
      cache.set(cacheKey, { principal, expiresAt: now() + cacheTtlMs });
      return principal;
    },
  };
};
