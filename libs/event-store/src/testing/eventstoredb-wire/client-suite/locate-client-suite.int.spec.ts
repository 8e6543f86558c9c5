import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { locateClientSuite } from './locate-client-suite.js';

const empty = mkdtempSync(join(tmpdir(), 'once-no-client-suite-'));

afterAll(() => {
  rmSync(empty, { recursive: true, force: true });
});

describe('locateClientSuite', () => {
  it('says what to clone and which setting to set when no clone is at hand', () => {
    const located = locateClientSuite('v6.2.1', { ONCE_ESDB_CLIENT_REPO: empty }, []);
    expect(located.found).toBe(false);
    if (located.found) return;
    expect(located.reason).toContain('git clone https://github.com/EventStore/EventStore-Client-NodeJS');
    expect(located.reason).toContain('ONCE_ESDB_CLIENT_REPO');
    expect(located.reason).toContain('ONCE_ESDB_CLIENT_SUITE');
    expect(located.reason).toContain('v6.2.1');
  });

  it('names ONCE_ESDB_CLIENT_SUITE when the folder it gives holds no suite', () => {
    const located = locateClientSuite('v6.2.1', { ONCE_ESDB_CLIENT_SUITE: empty }, []);
    expect(located).toEqual({
      found: false,
      reason: `ONCE_ESDB_CLIENT_SUITE=${empty} has no src/streams folder`,
    });
  });

  it('copies a given suite into a temporary folder of its own', () => {
    const suite = mkdtempSync(join(tmpdir(), 'once-client-suite-'));
    mkdirSync(join(suite, 'src', 'streams'), { recursive: true });
    writeFileSync(join(suite, 'src', 'streams', 'readAll.test.ts'), '');
    const located = locateClientSuite('v6.2.1', { ONCE_ESDB_CLIENT_SUITE: suite }, []);
    try {
      expect(located.found).toBe(true);
      if (!located.found) return;
      expect(located.folder.startsWith(suite)).toBe(false);
      expect(existsSync(join(located.folder, 'src', 'streams', 'readAll.test.ts'))).toBe(true);
    } finally {
      rmSync(suite, { recursive: true, force: true });
      if (located.found) rmSync(join(located.folder, '..', '..'), { recursive: true, force: true });
    }
  });
});
