import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { apiKeyId, apiKeyRoles } from '../http/auth/index.js';
import type { ApiKeyStore } from '../http/auth/index.js';

export const keysUsage = `Manages API keys. Only each key's SHA-256 is stored: a key is shown once, when it is made.

  npm run keys -- create [--tenant <uuid>] [--actor <uuid>] [--label <text>] [--role staff|operator|admin]
  npm run keys -- list [--tenant <uuid>]
  npm run keys -- revoke <key id>
  npm run keys -- rotate <key id>       a new key for the same tenant, actor and label; the old one revoked

A key id (key_…) is public: it names a key in lists, logs and audits without granting anything. A revoked key
stops working within the api's key cache TTL (5 s by default). --tenant and --actor default to new UUIDs; --role
to staff (the till: orders, payments, stock counts and their reads). An operator key may also read the console's /ops
routes and resolve card payments that need attention; an admin key may also configure the tenant (webhook endpoints
and deliveries, menu prices). apps/api/OPERATIONS.md lists every route's role.
DATABASE_URL selects the database; without it the embedded default's PostgreSQL (while \`npm start\` runs).`;

const createInput = z.object({
  tenant: z.uuid().default(randomUUID),
  actor: z.uuid().default(randomUUID),
  label: z.string().max(200).default(''),
  role: z.enum(apiKeyRoles).default('staff'),
});
const keyIdInput = z.string().regex(/^key_[0-9a-f]{12}$/, 'a key id looks like key_0123456789ab');

/** Where the command writes: results (JSON) to `out`, guidance and errors to `err`. */
export interface KeysCommandIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/**
 * `once-keys create|list|revoke|rotate`: parses the arguments and runs one command against the store. Returns the
 * exit code (0 done, 1 no such key, 2 bad usage).
 *
 * @example
 * const code = await runKeysCommand(['revoke', 'key_0123456789ab'], store, { out: console.log, err: console.error });
 */
export const runKeysCommand = async (
  args: readonly string[],
  store: ApiKeyStore,
  io: KeysCommandIo,
): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: false,
    options: {
      tenant: { type: 'string' },
      actor: { type: 'string' },
      label: { type: 'string' },
      role: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  const usageError = (message: string): number => {
    io.err(`${message}\n\n${keysUsage}`);
    return 2;
  };
  switch (command) {
    case 'create': {
      const input = createInput.safeParse(values);
      if (!input.success) return usageError(z.prettifyError(input.error));
      const { tenant: tenantId, actor: actorId, label, role } = input.data;
      const apiKey = await store.create({ tenantId, actorId, label, role });
      io.out(JSON.stringify({ tenantId, actorId, role, keyId: apiKeyId(apiKey), apiKey }, null, 2));
      io.err('Keep the key now: it is not stored and cannot be shown again.');
      return 0;
    }
    case 'list': {
      const tenant = z.uuid().optional().safeParse(values['tenant']);
      if (!tenant.success) return usageError(z.prettifyError(tenant.error));
      const keys = await store.list(tenant.data ? { tenantId: tenant.data } : {});
      io.out(JSON.stringify(keys, null, 2));
      return 0;
    }
    case 'revoke':
    case 'rotate': {
      const keyId = keyIdInput.safeParse(rest[0]);
      if (!keyId.success || rest.length !== 1) return usageError(`${command} takes one key id`);
      if (command === 'revoke') {
        if (!(await store.revoke(keyId.data))) {
          io.err(`no live key ${keyId.data}`);
          return 1;
        }
        io.out(JSON.stringify({ revoked: keyId.data }));
        return 0;
      }
      const rotated = await store.rotate(keyId.data);
      if (!rotated) {
        io.err(`no live key ${keyId.data}`);
        return 1;
      }
      io.out(JSON.stringify({ revoked: keyId.data, ...rotated }, null, 2));
      io.err('Keep the new key now: it is not stored and cannot be shown again.');
      return 0;
    }
    case undefined:
      return usageError('which command?');
    default:
      return usageError(`unknown command ${command}`);
  }
};
