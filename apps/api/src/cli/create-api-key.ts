import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { migrate } from '@once/postgres';
import { apiKeyMigrations, createApiKeyStore } from '../auth/index.js';
import { embeddedPostgresPort } from '../embedded/embedded-runtime.js';

const usage = `Creates an API key and prints it once (only its SHA-256 is stored).

  npm run -w @once/api create-api-key -- --tenant <uuid> --actor <uuid> [--label <text>]

--tenant and --actor default to new UUIDs. DATABASE_URL selects the database; without it the embedded default's
PostgreSQL (port ${String(embeddedPostgresPort)}, while \`npm start\` runs) is used.`;

const { values } = parseArgs({
  options: {
    tenant: { type: 'string' },
    actor: { type: 'string' },
    label: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const input = z
  .object({
    tenant: z.uuid().default(randomUUID),
    actor: z.uuid().default(randomUUID),
    label: z.string().max(200).default(''),
  })
  .safeParse(values);
if (!input.success) {
  console.error(`${z.prettifyError(input.error)}\n\n${usage}`);
  process.exit(2);
}

const connectionString =
  process.env['DATABASE_URL'] ??
  `postgres://postgres:once@127.0.0.1:${String(embeddedPostgresPort)}/postgres`;
const pool = new pg.Pool({ connectionString, max: 1 });
try {
  await migrate(pool, 'api', apiKeyMigrations);
  const apiKey = await createApiKeyStore(pool).create({
    tenantId: input.data.tenant,
    actorId: input.data.actor,
    label: input.data.label,
  });
  console.log(JSON.stringify({ tenantId: input.data.tenant, actorId: input.data.actor, apiKey }, null, 2));
  console.error('Keep the key now: it is not stored and cannot be shown again.');
} catch (error) {
  console.error(`could not create the key in ${connectionString.replace(/:[^:@/]*@/, ':***@')}:`, error);
  process.exitCode = 1;
} finally {
  await pool.end();
}
