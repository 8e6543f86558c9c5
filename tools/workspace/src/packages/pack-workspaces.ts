import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '../workspace-root.js';
import { runCommand } from './run-command.js';

/** What `npm pack --json` says about one tarball. */
export interface PackedTarball {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string }[];
}

/** Builds the given workspaces (and what they depend on) with Nx, then packs each into `destination`. */
export const packWorkspaces = async (
  folders: readonly string[],
  destination: string,
): Promise<ReadonlyMap<string, PackedTarball & { readonly path: string }>> => {
  const names = folders.map(
    (folder) =>
      (JSON.parse(readFileSync(join(workspaceRoot, folder, 'package.json'), 'utf8')) as { name: string })
        .name,
  );
  await runCommand('npm', ['run', 'build', '--', `--projects=${names.join(',')}`, '--output-style=static'], {
    cwd: workspaceRoot,
    env: { NX_DAEMON: 'false', NX_TUI: 'false', NX_NO_CLOUD: 'true' },
  });
  const workspaceFlags = folders.flatMap((folder) => ['-w', folder]);
  const output = await runCommand(
    'npm',
    ['pack', '--json', '--pack-destination', destination, ...workspaceFlags],
    { cwd: workspaceRoot },
  );
  const tarballs = JSON.parse(output) as PackedTarball[];
  return new Map(
    tarballs.map((tarball) => [tarball.name, { ...tarball, path: join(destination, tarball.filename) }]),
  );
};
