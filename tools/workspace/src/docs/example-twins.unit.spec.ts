import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceRoot } from '../workspace-root.js';

// Each example installs on its own, so the files they share are copies; their READMEs say which are the Fastify
// example's word for word, and this keeps those copies the same.
const copies = [
  [
    'examples/fastify-exactly-once/src/points-ledger.js',
    'examples/express-exactly-once/src/points-ledger.js',
  ],
  ['examples/fastify-exactly-once/src/background.js', 'examples/express-exactly-once/src/background.js'],
  ['examples/fastify-exactly-once/scripts/try-it.sh', 'examples/express-exactly-once/scripts/try-it.sh'],
  ['examples/fastify-exactly-once/scripts/try-it.sh', 'examples/nestjs-exactly-once/scripts/try-it.sh'],
] as const;

const text = (path: string): string => readFileSync(join(workspaceRoot, path), 'utf8');

describe.each(copies)('%s', (original, copy) => {
  it(`is the same as ${copy}`, () => {
    expect(text(copy)).toBe(text(original));
  });
});
