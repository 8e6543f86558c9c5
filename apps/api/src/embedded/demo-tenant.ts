import type { ApiKeyStore } from '../auth/index.js';

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

/**
 * Seeds the demo tenant's API keys (idempotent). Only the embedded default calls this: deterministic keys are a
 * convenience for a local demo and must never exist on a real server.
 *
 * @example
 * await seedDemoTenant(createApiKeyStore(pool));
 */
export const seedDemoTenant = async (apiKeys: ApiKeyStore): Promise<typeof demoTenant> => {
  for (const actor of demoTenant.actors) {
    await apiKeys.create({
      tenantId: demoTenant.tenantId,
      actorId: actor.actorId,
      label: `demo ${actor.name}`,
      apiKey: actor.apiKey,
    });
  }
  return demoTenant;
};
