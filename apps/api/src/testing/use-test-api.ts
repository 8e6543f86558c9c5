import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import type { AppDeps } from '../app.js';
import { createHttp } from './http.js';
import type { Http } from './http.js';
import { startTestApi } from './test-api.js';
import type { TestApi, TestTenant } from './test-api.js';

/** What `useTestApi` gives a test file once its `beforeAll` has run. */
export interface TestApiContext {
  readonly db: TestDatabase;
  readonly api: TestApi;
  readonly http: Http;
  /** A fresh tenant with two staff actors (alice, bob), an operator (olga) and an admin (ada). */
  readonly tenant: TestTenant;
}

/**
 * Registers the usual e2e setup of a test file: its own database, the api listening over it (no gateway unless
 * given, no logs), an HTTP client and a fresh tenant; all closed after the file. Read the fields inside tests.
 * `deps` may be a function, read when the api starts (after the file's earlier `beforeAll` hooks).
 *
 * @example
 * const env = useTestApi();
 * it('answers', async () => expect((await env.http.get('/health')).status).toBe(200));
 */
export const useTestApi = (
  deps: Partial<Omit<AppDeps, 'databaseUrl'>> | (() => Partial<Omit<AppDeps, 'databaseUrl'>>) = {},
): TestApiContext => {
  const context = {} as { db: TestDatabase; api: TestApi; http: Http; tenant: TestTenant };
  beforeAll(async () => {
    context.db = await createTestDatabase();
    context.api = await startTestApi({
      databaseUrl: context.db.connectionString,
      gatewayUrl: 'http://127.0.0.1:9',
      logger: false,
      ...(typeof deps === 'function' ? deps() : deps),
    });
    context.http = createHttp(context.api.url);
    context.tenant = await context.api.tenant();
  });
  afterAll(async () => {
    await context.api?.close();
    await context.db?.release();
  });
  return context;
};
