import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The repository's root folder. */
export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** How to run one of the repository's TypeScript entry points with node (sources resolved through tsx). */
export const nodeScript = (script: string): { command: string; args: string[] } => ({
  command: process.execPath,
  args: ['--conditions=@once/source', '--import', 'tsx', join(repositoryRoot, script)],
});

/** An API key made by the api's own command (which also creates its table): the tenant, the actor and the key. */
export interface IssuedApiKey {
  readonly tenantId: string;
  readonly actorId: string;
  readonly apiKey: string;
}

/**
 * Creates an admin API key for a new tenant with `apps/api`'s keys command (`once-keys create`): the workload puts
 * items on the tenant's menu, which only an admin may do, besides the till's orders, invoices and stock counts.
 *
 * @example
 * const { apiKey } = await createApiKey(postgres.connectionString);
 */
export const createApiKey = async (databaseUrl: string): Promise<IssuedApiKey> => {
  const { command, args } = nodeScript('apps/api/src/cli/once-keys.ts');
  const { stdout } = await promisify(execFile)(
    command,
    [...args, 'create', '--label', 'chaos', '--role', 'admin'],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl },
    },
  );
  return JSON.parse(stdout) as IssuedApiKey;
};
