import pg from 'pg';
import { migrate } from '@once/postgres';
import { apiKeyMigrations, createApiKeyStore } from '../auth/index.js';
import { embeddedPostgresPort } from '../embedded/embedded-runtime.js';
import { keysUsage, runKeysCommand } from './keys-command.js';

// once-keys: `npm run keys -- <create|list|revoke|rotate> …` (see keysUsage).
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(keysUsage);
  process.exit(0);
}

const connectionString =
  process.env['DATABASE_URL'] ??
  `postgres://postgres:once@127.0.0.1:${String(embeddedPostgresPort)}/postgres`;
const pool = new pg.Pool({ connectionString, max: 2 });
try {
  await migrate(pool, 'api', apiKeyMigrations);
  process.exitCode = await runKeysCommand(args, createApiKeyStore(pool), {
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  });
} catch (error) {
  console.error(`could not reach the keys in ${connectionString.replace(/:[^:@/]*@/, ':***@')}:`, error);
  process.exitCode = 1;
} finally {
  await pool.end();
}
