import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { clientSuiteFiles } from './client-suite-cases.js';

// Run by the harness (client-suite.int.spec.ts) in a process of its own, over the client's suite extracted into
// ONCE_ESDB_CLIENT_SUITE_DIR (a `packages/test` folder of the client's repository at the tag).
const suite = process.env['ONCE_ESDB_CLIENT_SUITE_DIR'];
if (!suite) throw new Error('ONCE_ESDB_CLIENT_SUITE_DIR names no folder: run the harness, not this config');
const here = dirname(fileURLToPath(import.meta.url));
const utils = resolve(suite, 'src/utils');
const client = dirname(fileURLToPath(import.meta.resolve('@eventstore/db-client/package.json')));

export default defineConfig({
  root: suite,
  resolve: {
    alias: [
      { find: /^@test-utils$/, replacement: join(utils, 'index.ts') },
      { find: /^@eventstore\/db-client$/, replacement: join(client, 'dist/index.js') },
      { find: /^@eventstore\/db-client\/(.*)$/, replacement: `${client}/$1` },
    ],
  },
  plugins: [
    {
      name: 'once-wire-test-node',
      enforce: 'pre',
      resolveId(source, importer) {
        if (source === './Cluster' && importer && dirname(importer) === utils)
          return join(here, 'wire-test-node.ts');
        return null;
      },
    },
  ],
  test: {
    include: clientSuiteFiles.map((file) => `src/streams/${file}`),
    globals: true,
    environment: 'node',
    setupFiles: [join(here, 'client-suite.setup.ts')],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
