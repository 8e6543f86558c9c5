import { execFile } from 'node:child_process';
import { access, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { postgresBinaries } from './cluster-config.js';

const run = promisify(execFile);

/** The programs a cluster runs, and the Debian package each comes from. */
const programs = [
  { path: `${postgresBinaries}/postgres`, debianPackage: 'postgresql-15' },
  { path: '/usr/bin/patroni', debianPackage: 'patroni' },
  { path: '/usr/bin/etcd', debianPackage: 'etcd-server' },
  { path: '/usr/sbin/haproxy', debianPackage: 'haproxy' },
] as const;

/** The Debian packages whose programs are missing here. */
export const missingPackages = async (): Promise<string[]> => {
  const missing: string[] = [];
  for (const program of programs) {
    await access(program.path).catch(() => missing.push(program.debianPackage));
  }
  return missing;
};

/** Thrown when the cluster cannot run here; the message says what it needs. */
export class ClusterPrerequisiteError extends Error {
  readonly code = 'CLUSTER_PREREQUISITE_MISSING';
}

const policyFile = '/usr/sbin/policy-rc.d';

/**
 * Installs the missing Debian packages with apt-get when this runs as root, with service starts refused while it
 * does (Debian's postgresql would otherwise start a cluster of its own on port 5432). Throws a
 * `ClusterPrerequisiteError` naming the packages when they cannot be installed here.
 */
export const ensurePackages = async (log: (line: string) => void): Promise<void> => {
  const missing = await missingPackages();
  if (missing.length === 0) return;
  const install = `apt-get install -y ${missing.join(' ')}`;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new ClusterPrerequisiteError(
      `the cluster needs the Debian packages ${missing.join(', ')}; install them as root (${install}) and run again`,
    );
  }
  log(`installing ${missing.join(', ')} with apt-get`);
  const ownPolicy = await access(policyFile).then(
    () => false,
    async () => {
      await writeFile(policyFile, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
      return true;
    },
  );
  try {
    await run('apt-get', ['update', '-qq'], { maxBuffer: 64 * 1024 * 1024 });
    await run('apt-get', ['install', '-y', '-qq', ...missing], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    throw new ClusterPrerequisiteError(
      `apt-get could not install ${missing.join(', ')} (${(error as Error).message.split('\n')[0] ?? ''}); the cluster needs them`,
    );
  } finally {
    if (ownPolicy) await rm(policyFile, { force: true });
  }
  const stillMissing = await missingPackages();
  if (stillMissing.length > 0) {
    throw new ClusterPrerequisiteError(`after apt-get, still missing: ${stillMissing.join(', ')}`);
  }
};

/** The user PostgreSQL runs as: `postgres` when this runs as root (PostgreSQL refuses root), else this user. */
export const postgresUser = async (): Promise<{ uid: number; gid: number } | undefined> => {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { uid, gid };
  } catch {
    throw new ClusterPrerequisiteError(
      'running as root, the cluster runs PostgreSQL as the user postgres, which does not exist (the postgresql-15 package creates it)',
    );
  }
};
