import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  clientSuiteFiles,
  clientSuiteServerVersion,
  clientSuiteTag,
  leftOutOfTheRun,
  outsideOncesUse,
} from './client-suite-cases.js';
import { locateClientSuite } from './locate-client-suite.js';

interface VitestJsonCase {
  readonly ancestorTitles: readonly string[];
  readonly title: string;
  readonly status: string;
}

interface VitestJsonReport {
  readonly testResults: readonly {
    readonly name: string;
    readonly assertionResults: readonly VitestJsonCase[];
  }[];
}

type CaseResult = 'passed' | 'failed' | 'not run';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const workspaceRoot = join(here, '..', '..', '..', '..', '..', '..');
const reportFile = join(workspaceRoot, 'test-output', 'eventstoredb-client-suite.json');

const opensslAnswers = (): boolean => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Runs the suite's chosen files with Vitest in a process of its own and reads its JSON report. */
const runClientSuite = (folder: string): VitestJsonReport => {
  const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
  const output = join(folder, '..', 'results.json');
  // Vitest matches -t against "<describe> <…> <test>"; the left-out cases are named by their test title.
  const leftOutTitles = [...new Set(Object.keys(leftOutOfTheRun).map((name) => name.split(' > ').at(-1)))];
  const run = spawnSync(
    process.execPath,
    [
      vitest,
      'run',
      '--config',
      join(here, 'client-suite.vitest.config.ts'),
      '--reporter=json',
      `--outputFile=${output}`,
      '--testNamePattern',
      `^(?!.* (${leftOutTitles.map((title) => escapeRegExp(title ?? '')).join('|')})$)`,
    ],
    { env: { ...process.env, ONCE_ESDB_CLIENT_SUITE_DIR: folder }, encoding: 'utf8', timeout: 180_000 },
  );
  if (run.error) throw run.error;
  try {
    return JSON.parse(readFileSync(output, 'utf8')) as VitestJsonReport;
  } catch (error) {
    throw new Error(`the client suite's run left no report:\n${run.stdout}\n${run.stderr}`, { cause: error });
  }
};

const caseResults = (folder: string, report: VitestJsonReport) =>
  report.testResults
    .flatMap((file) =>
      file.assertionResults.map((test) => {
        const name = [
          relative(join(folder, 'src', 'streams'), file.name),
          ...test.ancestorTitles,
          test.title,
        ].join(' > ');
        const result: CaseResult =
          test.status === 'passed' ? 'passed' : test.status === 'failed' ? 'failed' : 'not run';
        return { name, result };
      }),
    )
    .sort((a, b) => a.name.localeCompare(b.name));

const suite = locateClientSuite(clientSuiteTag, process.env);
const openssl = opensslAnswers();

afterAll(() => {
  if (suite.found) rmSync(join(suite.folder, '..', '..'), { recursive: true, force: true });
});

describe(`the EventStoreDB Node client's own suite (${clientSuiteTag}) against the wire server`, () => {
  if (!suite.found || !openssl) {
    it.skip(
      suite.found
        ? 'skipped: the harness serves TLS with a certificate made by the openssl CLI, and openssl does not answer'
        : `skipped: ${suite.reason}`,
    );
    return;
  }

  it('passes every case of the stream files Once uses, but those listed as outside its use', () => {
    const cases = caseResults(suite.folder, runClientSuite(suite.folder));
    const installed = (require('@eventstore/db-client/package.json') as { version: string }).version;
    const isOutside = (name: string) =>
      outsideOncesUse[name] !== undefined || leftOutOfTheRun[name] !== undefined;
    const skippedBySuite = cases.filter((test) => test.result === 'not run' && !isOutside(test.name));
    const report = {
      client: '@eventstore/db-client',
      clientVersion: installed,
      suite: `EventStore/EventStore-Client-NodeJS ${clientSuiteTag}, packages/test/src/streams`,
      suiteSource: suite.source,
      serverVersionTheSuiteSees: clientSuiteServerVersion,
      files: clientSuiteFiles,
      totals: {
        cases: cases.length,
        passed: cases.filter((test) => test.result === 'passed').length,
        outsideOncesUse: cases.filter((test) => isOutside(test.name)).length,
        failed: cases.filter((test) => test.result === 'failed' && !isOutside(test.name)).length,
        skippedBySuiteVersionGate: skippedBySuite.length,
      },
      cases: cases.map((test) => ({
        ...test,
        ...(isOutside(test.name)
          ? { outsideOncesUse: outsideOncesUse[test.name] ?? leftOutOfTheRun[test.name] }
          : {}),
      })),
    };
    mkdirSync(dirname(reportFile), { recursive: true });
    writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
    console.info(
      `EventStoreDB client suite ${clientSuiteTag} (client ${installed}) against the wire server: ` +
        `${report.totals.cases} cases, ${report.totals.passed} passed, ${report.totals.outsideOncesUse} outside ` +
        `Once's use, ${report.totals.failed} failed, ${report.totals.skippedBySuiteVersionGate} skipped by the ` +
        `suite's own server-version gate; report in ${relative(process.cwd(), reportFile)}`,
    );

    const names = new Set(cases.map((test) => test.name));
    const filesRun = new Set(cases.map((test) => test.name.split(' > ')[0]));
    expect(clientSuiteFiles.filter((file) => !filesRun.has(file))).toEqual([]);
    expect(installed).toBe(clientSuiteTag.slice(1));
    expect(cases.filter((test) => test.result === 'passed').length).toBeGreaterThan(0);
    expect(
      cases.filter((test) => test.result === 'failed' && outsideOncesUse[test.name] === undefined),
    ).toEqual([]);
    expect(
      cases.filter((test) => test.result !== 'not run' && leftOutOfTheRun[test.name] !== undefined),
    ).toEqual([]);
    expect(
      cases.filter((test) => test.result === 'passed' && outsideOncesUse[test.name] !== undefined),
    ).toEqual([]);
    expect(
      [...Object.keys(outsideOncesUse), ...Object.keys(leftOutOfTheRun)].filter((name) => !names.has(name)),
    ).toEqual([]);
  }, 200_000);
});
