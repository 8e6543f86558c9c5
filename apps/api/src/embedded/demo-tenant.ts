import type { ApiKeyRole, ApiKeyStore } from '../auth/index.js';

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
      role: actor.role,
      apiKey: actor.apiKey,
    });
  }
  return demoTenant;
};
