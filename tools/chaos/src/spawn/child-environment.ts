import { randomBytes } from 'node:crypto';

/** The server key the api replicas and the projector of one run share (`ONCE_SECRETS_KEY`). */
const runSecretsKey = randomBytes(32).toString('base64');

/** The processes the chaos tool starts. */
export type ChildRole = 'api' | 'projector' | 'gateway';

/** Everything the children need to find each other. */
export interface ChildSettings {
  readonly databaseUrl: string;
  /** EventStoreDB for the streams (`EVENTSTORE_URL` of the api and the projectors); PostgreSQL's `events` without it. */
  readonly eventStoreUrl?: string;
  /** The gateway simulator keeps its charges in a database of its own, so they survive its kill -9. */
  readonly gatewayDatabaseUrl: string;
  readonly gatewayUrl: string;
  /** Where the gateway sends its signed webhooks (the balancer in front of the api replicas). */
  readonly webhookUrl: string;
  readonly webhookSecret: string;
  /** How long a killed request holds its key before a retry or the completer takes it over. */
  readonly leaseMs: number;
  /** PostgreSQL connections per api replica. */
  readonly poolSize: number;
  /** Whether a projector runs the completer (it needs the gateway); the api replicas never do. */
  readonly completer: boolean;
  /** Settings every api and projector gets on top (shortened clocks: key retention, card retries). */
  readonly extraEnvironment: Readonly<Record<string, string>>;
}

/**
 * The environment of one child process, in one place: the settings of `@once/settings` the apps' mains read
 * (`ONCE_PROJECTOR`, `ONCE_LEASE_MS`, `ONCE_GATEWAY_URL`, …).
 *
 * @example
 * spawn(node, args, { env: childEnvironment('api', settings, 4001) });
 */
export const childEnvironment = (
  role: ChildRole,
  settings: ChildSettings,
  port?: number,
): NodeJS.ProcessEnv => {
  const common = { ...process.env, HOST: '127.0.0.1', ...(port === undefined ? {} : { PORT: String(port) }) };
  const eventStore = settings.eventStoreUrl === undefined ? {} : { EVENTSTORE_URL: settings.eventStoreUrl };
  switch (role) {
    case 'api':
      return {
        ...common,
        ONCE_LOG_LEVEL: 'warn',
        DATABASE_URL: settings.databaseUrl,
        ...eventStore,
        ONCE_SECRETS_KEY: runSecretsKey,
        ONCE_GATEWAY_URL: settings.gatewayUrl,
        ONCE_GATEWAY_WEBHOOK_SECRET: settings.webhookSecret,
        ONCE_PROJECTOR: 'external',
        ONCE_LEASE_MS: String(settings.leaseMs),
        ONCE_DATABASE_POOL_SIZE: String(settings.poolSize),
        // The workload comes from one address and one tenant on purpose; replicas run side by side.
        ONCE_RATE_LIMIT_ADDRESS_MAX: '0',
        ONCE_RATE_LIMIT_TENANT_MAX: '0',
        ONCE_METRICS_PORT: '0',
        ...settings.extraEnvironment,
      };
    case 'projector':
      return {
        ...common,
        ONCE_LOG_LEVEL: 'info',
        DATABASE_URL: settings.databaseUrl,
        ...eventStore,
        ONCE_SECRETS_KEY: runSecretsKey,
        ONCE_PROJECTOR_POLL_MS: '50',
        ONCE_PROJECTOR_LEASE_RETRY_MS: '250',
        // The completer runs here (the api replicas run none): the gateway and the lease of a key it takes over.
        ...(settings.completer ? { ONCE_GATEWAY_URL: settings.gatewayUrl } : {}),
        ONCE_LEASE_MS: String(settings.leaseMs),
        ...settings.extraEnvironment,
      };
    case 'gateway':
      return {
        ...common,
        ONCE_LOG_LEVEL: 'warn',
        ONCE_GATEWAY_DATABASE_URL: settings.gatewayDatabaseUrl,
        ONCE_GATEWAY_WEBHOOK_URL: settings.webhookUrl,
        ONCE_GATEWAY_WEBHOOK_SECRET: settings.webhookSecret,
      };
    default: {
      const _exhaustive: never = role;
      return _exhaustive;
    }
  }
};
