import pg from 'pg';
import { migrate } from '@once/postgres';
import { apiKeyMigrations, createApiKeyStore } from '../http/auth/index.js';
import { connectToEmbeddedDefaultPostgres } from '../embedded/embedded-runtime.js';
import { keysUsage, runKeysCommand } from './keys-command.js';

// once-keys: `npm run keys -- <create|list|revoke|rotate> …` (see keysUsage).
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(keysUsage);
  process.exit(0);
}

// DATABASE_URL, or the embedded default's server (the one the api runs, or one started here for this command).
const embedded = process.env['DATABASE_URL']
  ? undefined
  : await connectToEmbeddedDefaultPostgres(
      process.env['ONCE_DATA_DIR'] ? { dataDirectory: process.env['ONCE_DATA_DIR'] } : {},
    );
const connectionString = process.env['DATABASE_URL'] ?? (embedded?.connectionString as string);
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
  await embedded?.stop();
}
