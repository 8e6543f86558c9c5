import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { domainErrorCatalog } from '@once/domain';
import { rawRequest, useTestApi } from '../testing/index.js';
import { fuzzedRequest } from './fuzzed-request.js';

// ONCE_FUZZ_RUNS and ONCE_FUZZ_SEED replay or widen a run; the seed is printed either way.
const runs = Number(process.env['ONCE_FUZZ_RUNS'] ?? 10_000);
const seed = Number(process.env['ONCE_FUZZ_SEED'] ?? Date.now() % 2 ** 31);

const env = useTestApi({ operations: { scavenger: false } });
const domainProblemTypes = new Set(Object.keys(domainErrorCatalog).map((code) => `/problems/${code}`));

let invoiceId: string;
beforeAll(async () => {
  const issued = await env.http.post('/invoices', {
    apiKey: env.tenant.alice,
    key: randomUUID(),
    body: { currency: 'EUR', total: 1_000_000_000 },
  });
  invoiceId = issued.json<{ id: string }>().id;
});

const storedCounts = async (): Promise<string> => {
  const { rows } = await env.db.pool.query<{ events: string; streams: string }>(
    'SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM streams) AS streams',
  );
  return `${rows[0]?.events ?? '?'} events, ${rows[0]?.streams ?? '?'} streams`;
};

const problemType = (text: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && 'type' in parsed
      ? String(parsed.type)
      : undefined;
  } catch {
    return undefined;
  }
};

describe('the api under fuzzed requests', () => {
  it(`answers ${String(runs)} generated requests without a 5xx, stays up, and stores nothing for a rejected one`, async () => {
    console.log(
      `api fuzz: ${String(runs)} runs, seed ${String(seed)} (ONCE_FUZZ_SEED=${String(seed)} replays)`,
    );
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        // An admin key: it may call every route listed, so fuzzed bodies reach the menu's commands too.
        fuzzedRequest({ apiKey: () => env.tenant.ada, invoiceId: () => invoiceId }),
        async (request) => {
          const before = await storedCounts();
          const answer = await rawRequest(env.api.url, request);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          expect(answer.status, answer.text).toBeLessThan(500);
          const type = answer.status >= 400 ? problemType(answer.text) : undefined;
          // Business-rule problems are decided inside a keyed command and stored with its key, by design.
          if (answer.status >= 400 && !(type && domainProblemTypes.has(type))) {
            expect(await storedCounts(), `${request.method} ${request.path} → ${String(answer.status)}`).toBe(
              before,
            );
          }
        },
      ),
      { numRuns: runs, seed, endOnFailure: true },
    );
    console.log(
      `api fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
    );
    expect((await env.http.get('/health')).status).toBe(200);
    expect(statuses.size).toBeGreaterThan(5);
  }, 3_600_000);
});
