import type { Pool } from 'pg';
import { apiKeyId, createApiKeyStore } from '../auth/index.js';

/** The demo tenant the embedded default seeds: two actors at one café, with fixed keys. */
export const demoTenant = {
  tenantId: '0e1c0000-0000-4000-8000-00000000cafe',
  actors: [
    {
      name: 'alice',
      actorId: '0e1c0000-0000-4000-8000-00000000a11c',
      apiKey: 'once_demo_alice_0123456789abcdef',
    },
    {
      name: 'bob',
      actorId: '0e1c0000-0000-4000-8000-000000000b0b',
      apiKey: 'once_demo_bob_0123456789abcdef00',
    },
  ],
} as const;

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
 * const revoked = await revokeDemoKeys(pool); // 2 after a demo run, 0 otherwise
 */
export const revokeDemoKeys = async (pool: Pool): Promise<number> => {
  const { rowCount } = await pool.query(
    'UPDATE api_keys SET revoked_at = now() WHERE key_id = ANY($1) AND revoked_at IS NULL',
    [demoKeyIds],
  );
  return rowCount ?? 0;
};
