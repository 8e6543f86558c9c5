import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { createDatabase } from '../processes/bench-processes.js';
import { articleSchema } from './article-schema.js';

/** The article peer's database, seeded: its api key, tenant and invoices. */
export interface ArticleDatabase {
  readonly databaseUrl: string;
  readonly apiKey: string;
  readonly invoiceIds: readonly string[];
}

const withClient = async <T>(
  connectionString: string,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
};

/**
 * Creates the article peer's own database in the server of `serverUrl` (the same PostgreSQL Once runs on), its
 * schema, one API key and `invoices` open invoices of `total` EUR each.
 *
 * @example
 * const article = await createArticleDatabase(server.connectionString, { invoices: 1024, total: 1e12 });
 */
export const createArticleDatabase = async (
  serverUrl: string,
  seed: { readonly invoices: number; readonly total: number; readonly name?: string },
): Promise<ArticleDatabase> => {
  const databaseUrl = await createDatabase(serverUrl, seed.name ?? 'article_peer');
  const tenantId = randomUUID();
  const apiKey = `article_${randomBytes(24).toString('base64url')}`;
  const invoiceIds = Array.from({ length: seed.invoices }, () => randomUUID());
  await withClient(databaseUrl, async (client) => {
    await client.query(articleSchema);
    await client.query('INSERT INTO api_keys (key_hash, tenant_id, actor_id) VALUES ($1, $2, $3)', [
      createHash('sha256').update(apiKey, 'utf8').digest(),
      tenantId,
      randomUUID(),
    ]);
    await client.query(
      `INSERT INTO invoices (tenant_id, id, currency, total) SELECT $1, id, 'EUR', $3 FROM unnest($2::uuid[]) AS id`,
      [tenantId, invoiceIds, seed.total],
    );
  });
  return { databaseUrl, apiKey, invoiceIds };
};

/** What a side's database holds: the invoices' paid amounts and the payments recorded. */
export interface Balances {
  /** The sum of every invoice's paid amount. */
  readonly paid: number;
  /** The sum of the recorded payments' amounts. */
  readonly payments: number;
  /** How many payments are recorded. */
  readonly count: number;
}

/** The article peer's balances, read from its tables. */
export const articleBalances = (databaseUrl: string): Promise<Balances> =>
  withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ paid: string; payments: string; count: string }>(
      `SELECT (SELECT coalesce(sum(paid), 0) FROM invoices) AS paid,
              (SELECT coalesce(sum(amount), 0) FROM payments) AS payments,
              (SELECT count(*) FROM payments) AS count`,
    );
    const row = rows[0];
    return { paid: Number(row?.paid), payments: Number(row?.payments), count: Number(row?.count) };
  });

/**
 * Once's balances once its projector has caught up: the `invoices` read model's paid amounts against the
 * `PaymentRecorded` events in the log. Waits (up to `timeoutMs`) until the read model has applied them all.
 */
export const onceBalances = (databaseUrl: string, timeoutMs = 60_000): Promise<Balances> =>
  withClient(databaseUrl, async (client) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client
        .query<{ paid: string; payments: string; count: string }>(
          `SELECT (SELECT coalesce(sum(paid), 0) FROM invoices) AS paid,
                (SELECT coalesce(sum((data->'amount'->>'amount')::bigint), 0) FROM events
                  WHERE type = 'PaymentRecorded') AS payments,
                (SELECT count(*) FROM events WHERE type = 'PaymentRecorded') AS count`,
        )
        // A projector just started may not have created the read model yet: wait for it like for a lag.
        .catch((error: unknown) => {
          if ((error as { code?: unknown }).code === '42P01' && Date.now() < deadline) return { rows: [] };
          throw error;
        });
      const row = rows[0];
      const balances = {
        paid: Number(row?.paid),
        payments: Number(row?.payments),
        count: Number(row?.count),
      };
      if (row !== undefined && (balances.paid === balances.payments || Date.now() > deadline))
        return balances;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });

/**
 * Throws unless a side's paid amounts equal the sum of its recorded payments, and the payments recorded are the
 * `confirmed` ones (answered 201) plus at most `inFlight` more (requests a phase's end cut off after the server
 * committed them).
 */
export const assertBalanced = (
  side: string,
  balances: Balances,
  confirmed: { readonly count: number; readonly inFlight: number },
): void => {
  if (balances.paid !== balances.payments)
    throw new Error(`${side}: invoices paid ${balances.paid}, payments recorded ${balances.payments}`);
  if (balances.count < confirmed.count || balances.count > confirmed.count + confirmed.inFlight)
    throw new Error(
      `${side}: ${balances.count} payments recorded, ${confirmed.count} confirmed (+ up to ${confirmed.inFlight} cut off)`,
    );
};
