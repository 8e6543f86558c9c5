import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { workspaceRoot } from '../workspace-root.js';
import { isWalkFile, splitMeasuredFiles } from './card-payment-walk.js';

/**
 * The walk of `POST /invoices/:id/payments` (card) in docs/ARCHITECTURE.md against the code as it runs: the trace
 * script measures the files a first card payment calls a function in, and the table lists exactly the walk's share of
 * them (the rule is in `card-payment-walk.ts`), in the document's reading order; the summary line counts the rest.
 */
const architecture = readFileSync(join(workspaceRoot, 'docs/ARCHITECTURE.md'), 'utf8');
const walkStart = architecture.indexOf('### The walk');
const walkSection = architecture.slice(walkStart, architecture.indexOf('\n## ', walkStart));
const tableRows = [...walkSection.matchAll(/^\| (\d+) +\| \[`([^`]+)`\]/gm)].map((match) => ({
  number: Number(match[1]),
  file: match[2] as string,
}));

interface Trace {
  readonly measured: readonly string[];
  readonly dropped: readonly string[];
}

let db: TestDatabase;
let trace: Trace;

beforeAll(async () => {
  db = await createTestDatabase();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--conditions=@once/source',
      '--import',
      'tsx',
      join(workspaceRoot, 'tools/workspace/src/docs/card-payment-trace.ts'),
    ],
    {
      cwd: workspaceRoot,
      env: { ...process.env, DATABASE_URL: db.connectionString },
      maxBuffer: 4 * 1024 * 1024,
    },
  );
  trace = JSON.parse(stdout) as Trace;
}, 180_000);

afterAll(async () => {
  await db?.release();
});

describe('the card payment walk in docs/ARCHITECTURE.md', () => {
  it('numbers its rows 1, 2, 3, … and names each file once', () => {
    expect(tableRows.map((row) => row.number)).toEqual(tableRows.map((_row, index) => index + 1));
    expect(new Set(tableRows.map((row) => row.file)).size).toBe(tableRows.length);
  });

  it('leaves out no write-side file because an idle wait ran it too', () => {
    expect(trace.dropped.filter(isWalkFile)).toEqual([]);
  });

  it('lists exactly the walk files a first card payment runs', () => {
    const { walk } = splitMeasuredFiles(trace.measured);
    expect([...tableRows.map((row) => row.file)].sort()).toEqual(walk);
  });

  it('says how many walk files and infrastructure files the payment runs', () => {
    const { walk, infrastructure } = splitMeasuredFiles(trace.measured);
    const prose = walkSection.replaceAll(/\s+/g, ' ');
    expect(prose).toContain(`**${String(walk.length)} files in`);
    const apiInfrastructure = infrastructure.filter((file) => file.startsWith('apps/api/'));
    const canonicalJson = infrastructure.filter((file) => file.startsWith('libs/canonical-json/'));
    expect(apiInfrastructure.length + canonicalJson.length).toBe(infrastructure.length);
    expect(prose).toContain(
      `**${String(infrastructure.length)} infrastructure files** (${String(apiInfrastructure.length)} of the api's shared HTTP code, ${String(canonicalJson.length)} in \`libs/canonical-json\`)`,
    );
  });
});
