import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the client's suite was found, copied into a folder of its own, or why it was not. */
export type LocatedClientSuite =
  | { readonly found: true; readonly folder: string; readonly source: string }
  | { readonly found: false; readonly reason: string };

/** Clones of EventStore/EventStore-Client-NodeJS looked in after ONCE_ESDB_CLIENT_REPO. */
const knownClones = ['/work/.mirror/EventStore+EventStore-Client-NodeJS/repo'];

const hasTag = (repository: string, tag: string): boolean => {
  try {
    execFileSync('git', ['-C', repository, 'rev-parse', '--verify', '--quiet', `refs/tags/${tag}`], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
};

/**
 * Finds the EventStoreDB Node client's test suite (its `packages/test` folder) and copies its `src` into a fresh
 * temporary folder, so nothing of it lands in this repository: from ONCE_ESDB_CLIENT_SUITE (a `packages/test` folder
 * of the client at the tag), else by `git archive` of the tag from ONCE_ESDB_CLIENT_REPO or a known clone.
 *
 * @param tag the client's release tag, e.g. `v6.2.1`
 * @param environment where the two settings are read from (the test's `process.env`)
 * @param clones clones looked in after ONCE_ESDB_CLIENT_REPO (default: a known mirror's path)
 * @example
 * const suite = locateClientSuite('v6.2.1', process.env);
 * if (suite.found) console.log(suite.folder);
 */
export const locateClientSuite = (
  tag: string,
  environment: Readonly<Record<string, string | undefined>>,
  clones: readonly string[] = knownClones,
): LocatedClientSuite => {
  const newFolder = () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'once-esdb-client-suite-')), 'packages', 'test');
    mkdirSync(folder, { recursive: true });
    return folder;
  };
  const given = environment['ONCE_ESDB_CLIENT_SUITE'];
  if (given) {
    if (!existsSync(join(given, 'src', 'streams')))
      return { found: false, reason: `ONCE_ESDB_CLIENT_SUITE=${given} has no src/streams folder` };
    const folder = newFolder();
    cpSync(join(given, 'src'), join(folder, 'src'), { recursive: true });
    return { found: true, folder, source: `ONCE_ESDB_CLIENT_SUITE (${given}), taken as ${tag}` };
  }
  const candidates = [environment['ONCE_ESDB_CLIENT_REPO'], ...clones].filter(
    (candidate): candidate is string => candidate !== undefined && existsSync(candidate),
  );
  const repository = candidates.find((candidate) => hasTag(candidate, tag));
  if (!repository)
    return {
      found: false,
      reason:
        `no clone of EventStore/EventStore-Client-NodeJS with tag ${tag} (looked in ONCE_ESDB_CLIENT_REPO and ` +
        `${clones.length === 0 ? 'no other clone' : clones.join(', ')}): \`git clone https://github.com/EventStore/EventStore-Client-NodeJS\` ` +
        `and set ONCE_ESDB_CLIENT_REPO to the clone, or set ONCE_ESDB_CLIENT_SUITE to its packages/test folder ` +
        `checked out at ${tag}`,
    };
  const folder = newFolder();
  const archive = join(folder, '..', 'suite.tar');
  execFileSync('git', ['-C', repository, 'archive', '-o', archive, tag, 'packages/test/src']);
  execFileSync('tar', ['-xf', archive, '-C', join(folder, '..', '..')]);
  return { found: true, folder, source: `git archive ${tag} of ${repository}` };
};
