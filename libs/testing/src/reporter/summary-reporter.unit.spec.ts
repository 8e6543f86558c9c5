import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import SummaryReporter from './summary-reporter.js';

type TestState = 'passed' | 'failed' | 'skipped' | 'pending';

/** A file of the run as the reporter reads it: its own state and its tests' states. */
const testFile = (state: 'passed' | 'failed' | 'skipped', tests: readonly TestState[]): TestModule =>
  ({
    state: () => state,
    children: { allTests: () => tests.map((testState) => ({ result: () => ({ state: testState }) })) },
  }) as unknown as TestModule;

const closingLine = (files: readonly TestModule[], unhandledErrors: readonly unknown[] = []): string => {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  new SummaryReporter().onTestRunEnd(files, unhandledErrors);
  return String(write.mock.calls.at(-1)?.[0]).trim();
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the closing line', () => {
  it('sums every file’s tests by their outcome', () => {
    const files = [testFile('passed', ['passed', 'passed', 'skipped']), testFile('failed', ['passed', 'failed'])];
    expect(closingLine(files)).toBe('3 passed, 1 failed, 1 skipped');
  });

  it('counts a file whose beforeAll threw as a failure, though its tests only show as skipped', () => {
    expect(closingLine([testFile('failed', ['skipped', 'skipped'])])).toBe('0 passed, 1 failed, 2 skipped');
  });

  it('counts a file that did not load as a failure', () => {
    expect(closingLine([testFile('failed', []), testFile('passed', ['passed'])])).toBe(
      '1 passed, 1 failed, 0 skipped',
    );
  });

  it('counts each error outside any test', () => {
    expect(closingLine([testFile('passed', ['passed'])], [new Error('leaked')])).toBe(
      '1 passed, 1 failed, 0 skipped',
    );
  });
});
