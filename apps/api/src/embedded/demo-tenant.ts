import type { Pool } from 'pg';
import { apiKeyId, createApiKeyStore } from '../http/auth/index.js';
import type { ApiKeyRole } from '../http/auth/index.js';

/**
 * The demo tenant the embedded default seeds: one café with fixed keys, two at the till (staff), one for the console
 * (operator) and one that configures the café (admin: webhook endpoints, menu prices).
 */
export const demoTenant = {
  tenantId: '0e1c0000-0000-4000-8000-00000000cafe',
  actors: [
    {
      name: 'alice',
      actorId: '0e1c0000-0000-4000-8000-00000000a11c',
      apiKey: 'once_demo_alice_0123456789abcdef',
      role: 'staff',
    },
    {
      name: 'bob',
      actorId: '0e1c0000-0000-4000-8000-000000000b0b',
      apiKey: 'once_demo_bob_0123456789abcdef00',
      role: 'staff',
    },
    {
      name: 'olga',
      actorId: '0e1c0000-0000-4000-8000-00000000019a',
      apiKey: 'once_demo_olga_0123456789abcdef0',
      role: 'operator',
    },
    {
      name: 'ada',
      actorId: '0e1c0000-0000-4000-8000-000000000ada',
      apiKey: 'once_demo_ada_0123456789abcdef00',
      role: 'admin',
    },
  ],
} as const satisfies {
  readonly tenantId: string;
  readonly actors: readonly {
    readonly name: string;
    readonly actorId: string;
    readonly apiKey: string;
    readonly role: ApiKeyRole;
  }[];
};

const demoKeyIds = demoTenant.actors.map((actor) => apiKeyId(actor.apiKey));

/**
 * Seeds the demo tenant's API keys (idempotent), valid again if an earlier start revoked them. Only a start on
 * loopback calls this (`shouldSeedDemoKeys`): deterministic keys are a convenience for a local demo and must never
 * work on a real server.
 *
 * @example
 * await seedDemoTenant(pool);
 */
export const seedDemoTenant = async (pool: Pool): Promise<typeof demoTenant> => {
  const apiKeys = createApiKeyStore(pool);
  for (const actor of demoTenant.actors) {
    await apiKeys.create({
      tenantId: demoTenant.tenantId,
      actorId: actor.actorId,
      label: `demo ${actor.name}`,
      role: actor.role,
      apiKey: actor.apiKey,
    });
  }
  await pool.query(
    'UPDATE api_keys SET revoked_at = NULL WHERE key_id = ANY($1) AND revoked_at IS NOT NULL',
    [demoKeyIds],
  );
  return demoTenant;
};

/**
 * Revokes the demo tenant's API keys wherever an earlier start seeded them: every start that does not seed them
 * calls this before it listens, so public keys never outlive the loopback demo they were made for.
 *
 * @example
 * const revoked = await revokeDemoKeys(pool); // 4 after a demo run, 0 otherwise
 */
export const revokeDemoKeys = async (pool: Pool): Promise<number> => {
  const { rowCount } = await pool.query(
    'UPDATE api_keys SET revoked_at = now() WHERE key_id = ANY($1) AND revoked_at IS NULL',
    [demoKeyIds],
  );
  return rowCount ?? 0;
};
