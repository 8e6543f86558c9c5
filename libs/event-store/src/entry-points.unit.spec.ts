import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sourceRoot = dirname(fileURLToPath(import.meta.url));
// Imports that stay in the built JavaScript: `import type` and `export type` are erased.
const runtimeImport = /^(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?'([^']+)';/gm;

/** The files an entry point loads at run time (relative to `src`), and the packages they import. */
const loadedBy = (entry: string): { files: string[]; packages: string[] } => {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const code = readFileSync(join(sourceRoot, file), 'utf8');
    for (const [, specifier] of code.matchAll(runtimeImport)) {
      if (specifier === undefined) continue;
      if (!specifier.startsWith('.')) packages.add(specifier);
      else visit(relative(sourceRoot, join(sourceRoot, dirname(file), specifier.replace(/\.js$/, '.ts'))));
    }
  };
  visit(entry);
  return { files: [...files].sort(), packages: [...packages].sort() };
};

describe('the entry points of @once/event-store', () => {
  it('the root loads the port alone: no adapter, no pg, no gRPC client', () => {
    const root = loadedBy('index.ts');
    expect(root.packages).toEqual([]);
    expect(root.files.filter((file) => file !== 'index.ts' && !file.startsWith('port/'))).toEqual([]);
  });

  it.each([
    ['in-memory/index.ts', []],
    ['postgres/index.ts', ['@once/postgres', 'pg']],
    ['eventstoredb/index.ts', ['@eventstore/db-client']],
  ])('%s loads only its own driver', (entry, drivers) => {
    const { files, packages } = loadedBy(entry);
    expect(packages.filter((name) => !name.startsWith('node:'))).toEqual(drivers);
    const adapter = dirname(entry);
    const shared = ['port/', 'subscription/', 'retention/'];
    expect(
      files.filter(
        (file) => !file.startsWith(`${adapter}/`) && !shared.some((folder) => file.startsWith(folder)),
      ),
    ).toEqual([]);
  });
});
