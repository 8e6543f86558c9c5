import { isIP } from 'node:net';
import { z } from 'zod';
import { eventStoreDbConnectionStringProblem } from '@once/event-store/eventstoredb';
import { isWebhookSecret, secretsKeysProblem } from '@once/webhooks';

/** `0`, `1`, `true` or `false`; unset stays undefined, so each process picks its own default. */
const flag = z
  .enum(['0', '1', 'true', 'false'])
  .optional()
  .transform((value) => (value === undefined ? undefined : value === '1' || value === 'true'));
const milliseconds = (max: number) => z.coerce.number().int().min(0).max(max);
const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//)
  .optional();
const proxyAddressNames = ['loopback', 'linklocal', 'uniquelocal'];
/** An address, a CIDR range (`10.0.0.0/8`) or one of proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`). */
const isProxyAddress = (entry: string): boolean => {
  if (proxyAddressNames.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
};
const webhookSecret = z.string().refine(isWebhookSecret, 'a whsec_ secret (base64 of 24 to 64 bytes)');

/**
 * Every setting a Once process reads from its environment, in one place: `DATABASE_URL`, `EVENTSTORE_URL`, `PORT`
 * and `HOST` keep their usual names; the project's own settings start with `ONCE_`. Each main picks the settings it
 * reads (`onceEnvironment.pick({ … })`) and reads them with `readEnvironment`. `PORT` and `HOST` have no default
 * here: each service has its own.
 */
export const onceEnvironment = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  HOST: z.string().min(1).optional(),
  /** PostgreSQL: api keys, read models, the key table, and the event streams unless `EVENTSTORE_URL` is set. */
  DATABASE_URL: postgresUrl,
  // Validated by the client's own parser: `esdb://` or `esdb+discover://` (client 6.x reads no `kurrentdb://`).
  EVENTSTORE_URL: z
    .string()
    .refine((url) => eventStoreDbConnectionStringProblem(url) === undefined, {
      error: (issue) => eventStoreDbConnectionStringProblem(String(issue.input)),
    })
    .optional(),
  /** Where the embedded default keeps PostgreSQL's data (default `.once/postgres`). */
  ONCE_DATA_DIR: z.string().min(1).optional(),
  /**
   * The server keys secrets are sealed with at rest (webhook endpoints' secrets) and card tokens referenced under:
   * comma-separated base64 of 32 random bytes, the current key first, older keys after it (they only unseal).
   * Required with `DATABASE_URL`; the embedded default generates one into its data folder.
   */
  ONCE_SECRETS_KEY: z
    .string()
    .refine((keys) => secretsKeysProblem(keys) === undefined, {
      error: (issue) => secretsKeysProblem(String(issue.input)),
    })
    .optional(),
  ONCE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Connections in the api's PostgreSQL pool (a keyed command may use two at once: its append and the key's retention). */
  ONCE_DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(40),

  /** The card gateway (apps/gateway-sim or a real one with the same contract). */
  ONCE_GATEWAY_URL: z.url().optional(),
  /** The Standard Webhooks secret the gateway signs its webhooks with (`whsec_` + base64 of 24 to 64 bytes). */
  ONCE_GATEWAY_WEBHOOK_SECRET: webhookSecret.optional(),
  /** The gateway simulator: where it sends its signed webhooks (the api's `/webhooks/gateway`). */
  ONCE_GATEWAY_WEBHOOK_URL: z.url().optional(),
  /** The gateway simulator keeps charges and keys in this database of its own; in memory when omitted. */
  ONCE_GATEWAY_DATABASE_URL: postgresUrl,
  /** The token the gateway simulator's fault controls need. Without it they are open on loopback only. */
  ONCE_GATEWAY_FAULT_TOKEN: z.string().min(16).optional(),
  /**
   * The bearer secret the gateway simulator's `/charges` need, and the api and the projector send. Without it the
   * simulator takes charges on loopback only, and refuses to start on any other address.
   */
  ONCE_GATEWAY_API_TOKEN: z.string().min(16).optional(),

  /** `external` when apps/projector runs as its own service (docker compose); in-process otherwise. */
  ONCE_PROJECTOR: z.enum(['in-process', 'external']).default('in-process'),
  /** How long a crashed request holds its key before a retry or the completer may take it over (ms). */
  ONCE_LEASE_MS: z.coerce.number().int().min(100).max(600_000).optional(),
  /** How many completed keys the api answers from memory, without reading their key log (0: none). */
  ONCE_COMPLETED_KEYS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /** How many events of the aggregates it decides on the api keeps in memory, over all of them (0: none). */
  ONCE_KEPT_EVENTS: z.coerce.number().int().min(0).max(10_000_000).optional(),
  /** Appends that reach the PostgreSQL store in one turn of the event loop share one statement and commit (default on). */
  ONCE_SHARED_COMMITS: flag,
  /** How long a batch of appends stays open past its turn while other appends are being written (µs; default 0). */
  ONCE_SHARED_COMMITS_WAIT_US: z.coerce.number().int().min(0).max(100_000).optional(),
  /** Pause between rounds of the completer, which finishes keys whose client went quiet (ms). */
  ONCE_COMPLETER_INTERVAL_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  ONCE_PROJECTOR_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(2000),
  ONCE_PROJECTOR_POLL_MS: z.coerce.number().int().min(1).max(60_000).default(100),
  ONCE_PROJECTOR_LEASE_RETRY_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Events per batch of `npm run replay`. */
  ONCE_REPLAY_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(2000),
  /** The longest a read waits for its `Once-Min-Position` (ms). */
  ONCE_READ_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),

  /** Webhook endpoints may use http to loopback hosts (development). On by default for the embedded default only. */
  ONCE_WEBHOOK_ALLOW_HTTP: flag,
  /**
   * Comma-separated host names every tenant's webhook endpoints may use although they resolve to loopback or private
   * addresses (`kitchen-display` on the compose network), over http too; none by default. No other internal host is.
   */
  ONCE_WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((text) =>
      (text ?? '')
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ''),
    )
    .pipe(z.array(z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/))),
  /** Delivered webhook messages and their attempts are deleted this many days after delivery (dead and held: never). */
  ONCE_WEBHOOK_RETENTION_DAYS: z.coerce.number().min(0.0001).max(3_650).default(30),
  /** The most log events one `POST /webhook-endpoints/:id/replay` reads (a 422 beyond: replay shorter ranges). */
  ONCE_WEBHOOK_REPLAY_MAX_EVENTS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),

  /** `1` seeds the demo tenant's fixed keys on loopback (never off it); `0` never. Default: the embedded default. */
  ONCE_DEMO: flag,
  /** The internal port `/metrics` is served on, apart from the api's; 0 (default) picks a free one and logs it. */
  ONCE_METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  /** The projector's port for `/metrics` and `/health/live`; 0 (default) picks a free one and logs it. */
  ONCE_PROJECTOR_METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  /** Where the api's and the projector's metrics listeners bind (`0.0.0.0` for a scraper on another host). */
  ONCE_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Requests per window per client address (before authentication); 0 turns the limits off. */
  ONCE_RATE_LIMIT_ADDRESS_MAX: z.coerce.number().int().min(0).default(12_000),
  /** Requests per window per tenant (after authentication). */
  ONCE_RATE_LIMIT_TENANT_MAX: z.coerce.number().int().min(0).default(6_000),
  ONCE_RATE_LIMIT_WINDOW_MS: milliseconds(3_600_000).default(60_000),
  /** Comma-separated origins allowed by CORS (`https://till.example`); none: CORS off. */
  ONCE_CORS_ORIGINS: z
    .string()
    .optional()
    .transform((text) =>
      (text ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin !== ''),
    )
    .pipe(z.array(z.url({ protocol: /^https?$/ }))),
  /**
   * The proxies in front of the api whose `X-Forwarded-For` names the client (Fastify's `trustProxy`): a hop count
   * (`1`: the nearest proxy) or comma-separated addresses and CIDR ranges (`10.0.0.0/8,loopback`). Unset: the socket's
   * address is the client's, and `X-Forwarded-For` is ignored.
   */
  ONCE_TRUST_PROXY: z
    .string()
    .optional()
    .transform((text, context): number | string[] | undefined => {
      const trimmed = text?.trim() ?? '';
      if (trimmed === '') return undefined;
      if (/^\d+$/.test(trimmed) && Number(trimmed) >= 1 && Number(trimmed) <= 32) return Number(trimmed);
      const entries = trimmed.split(',').map((entry) => entry.trim());
      const wrong = entries.filter((entry) => !isProxyAddress(entry));
      if (wrong.length === 0) return entries;
      context.addIssue({
        code: 'custom',
        message: `a hop count (1 to 32) or proxy addresses and CIDR ranges; not ${wrong.join(', ')}`,
      });
      return z.NEVER;
    }),
  ONCE_REQUEST_TIMEOUT_MS: milliseconds(600_000).default(30_000),
  ONCE_CONNECTION_TIMEOUT_MS: milliseconds(600_000).default(60_000),
  ONCE_STATEMENT_TIMEOUT_MS: milliseconds(600_000).default(30_000),
  ONCE_POOL_CONNECTION_TIMEOUT_MS: milliseconds(600_000).default(5_000),
  /**
   * How long a pool connection may stay idle before it is closed (ms; `0`: never). A burst after a longer lull opens
   * its connections again: a new server process each, authenticated, with every statement planned anew.
   */
  ONCE_POOL_IDLE_TIMEOUT_MS: milliseconds(3_600_000).default(300_000),
  ONCE_MAX_WAITING_READS: z.coerce.number().int().min(1).max(100_000).default(1_000),
  ONCE_API_KEY_CACHE_TTL_MS: milliseconds(600_000).default(5_000),
  /** `0` turns the retention scavenger off (with EventStoreDB streams: the scheduled server scavenges). */
  ONCE_SCAVENGER: flag,
  ONCE_SCAVENGER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  /** With EventStoreDB streams: time between the scavenges one process starts on the server; 24 h by default. */
  ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(86_400),
  /** Key retention when a route sets none (seconds); 24 h by default. Short values are for soak tests. */
  ONCE_KEY_RETENTION_SECONDS: z.coerce.number().int().min(1).max(31_536_000).optional(),
  /** A card payment whose outcome stays unknown: attempts before an operator must settle it (default 8). */
  ONCE_CARD_RETRY_ATTEMPTS: z.coerce.number().int().min(1).max(100).optional(),
  /** The pause after its first unknown attempt (ms, default 5,000); it doubles after each one. */
  ONCE_CARD_RETRY_BASE_MS: milliseconds(86_400_000).optional(),
  /** The longest pause between its attempts (ms, default 300,000). */
  ONCE_CARD_RETRY_MAX_MS: milliseconds(86_400_000).optional(),

  /** The kitchen display: the api it registers its webhook endpoint with, and an API key of the tenant to show. */
  ONCE_API_URL: z.url().default('http://127.0.0.1:3000'),
  ONCE_API_KEY: z.string().min(1).optional(),
  /** The kitchen display's endpoint registered by hand: its secret (then no API key is needed). */
  ONCE_KITCHEN_WEBHOOK_SECRET: webhookSecret.optional(),
  /** Where the api reaches the kitchen display; `http://HOST:PORT/webhooks` by default. */
  ONCE_KITCHEN_WEBHOOK_URL: z.url().optional(),
});

/** Every setting, parsed. */
export type OnceEnvironment = z.infer<typeof onceEnvironment>;

/**
 * Every setting as a process reads it from an empty environment: the schema's defaults, the one place they are written.
 * Wiring that is handed fewer settings than a main reads (tests) falls back to these.
 *
 * @example
 * const intervalMs = options.completerIntervalMs ?? onceDefaults.ONCE_COMPLETER_INTERVAL_MS;
 */
export const onceDefaults: OnceEnvironment = onceEnvironment.parse({});
