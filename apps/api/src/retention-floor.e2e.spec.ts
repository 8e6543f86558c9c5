import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const mains = {
  api: fileURLToPath(new URL('./main.ts', import.meta.url)),
  projector: fileURLToPath(new URL('../../projector/src/main.ts', import.meta.url)),
};

describe('a key retention shorter than the lease plus the card retries', () => {
  it.each(Object.entries(mains))(
    'stops the %s before it starts, naming both numbers',
    async (_name, main) => {
      const failure = await run(process.execPath, ['--conditions=@once/source', '--import', 'tsx', main], {
        // Nothing is reached before the refusal: the database address goes nowhere.
        env: {
          ...process.env,
          DATABASE_URL: 'postgres://127.0.0.1:1/none',
          // Required beside DATABASE_URL, and checked first: a valid one lets the retention be what is refused.
          ONCE_SECRETS_KEY: randomBytes(32).toString('base64'),
          ONCE_KEY_RETENTION_SECONDS: '60',
          ONCE_LEASE_MS: '30000',
        },
        timeout: 60_000,
      }).then(
        () => undefined,
        (error: unknown) => error as { code?: number; stderr?: string },
      );
      expect(failure?.code).not.toBe(0);
      expect(failure?.stderr).toContain('KeyRetentionTooShortError');
      expect(failure?.stderr).toContain('key retention 60 s (ONCE_KEY_RETENTION_SECONDS)');
      expect(failure?.stderr).toContain('lease 30000 ms (ONCE_LEASE_MS)');
      expect(failure?.stderr).toContain("card settlement's retry window 615000 ms");
    },
  );
});
