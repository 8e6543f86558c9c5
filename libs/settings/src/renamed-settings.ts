/** Settings read under another name before every project setting took the `ONCE_` prefix: old name → new name. */
export const renamedSettings: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'ONCE_LOG_LEVEL',
  GATEWAY_URL: 'ONCE_GATEWAY_URL',
  GATEWAY_WEBHOOK_SECRET: 'ONCE_GATEWAY_WEBHOOK_SECRET',
  WEBHOOK_SECRET: 'ONCE_GATEWAY_WEBHOOK_SECRET',
  WEBHOOK_URL: 'ONCE_GATEWAY_WEBHOOK_URL',
  GATEWAY_DATABASE_URL: 'ONCE_GATEWAY_DATABASE_URL',
  DATABASE_POOL_SIZE: 'ONCE_DATABASE_POOL_SIZE',
  IDEMPOTENCY_LEASE_MS: 'ONCE_LEASE_MS',
  PROJECTOR_BATCH_SIZE: 'ONCE_PROJECTOR_BATCH_SIZE',
  PROJECTOR_POLL_MS: 'ONCE_PROJECTOR_POLL_MS',
  PROJECTOR_LEASE_RETRY_MS: 'ONCE_PROJECTOR_LEASE_RETRY_MS',
  REPLAY_BATCH_SIZE: 'ONCE_REPLAY_BATCH_SIZE',
  // Not a rename but a replacement: private networks for every tenant became a list of allowed internal hosts.
  ONCE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'ONCE_WEBHOOK_ALLOWED_HOSTS',
};

/**
 * The old names set in `env` among those renamed to one of `names`, as sentences (`LOG_LEVEL is now ONCE_LOG_LEVEL`).
 *
 * @example
 * renamedSettingsIn({ LOG_LEVEL: 'warn' }, ['ONCE_LOG_LEVEL']); // ['LOG_LEVEL is now ONCE_LOG_LEVEL']
 */
export const renamedSettingsIn = (
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): string[] =>
  Object.entries(renamedSettings)
    .filter(([old, current]) => names.includes(current) && env[old] !== undefined)
    .map(([old, current]) => `${old} is now ${current}`);
