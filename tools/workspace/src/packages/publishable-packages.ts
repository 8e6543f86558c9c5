/** The libraries other teams install, by workspace folder: each is packed, and its manifest checked. */
export const publishablePackages = [
  'libs/canonical-json',
  'libs/client',
  'libs/event-store',
  'libs/idempotency',
  'libs/postgres',
  'libs/webhooks',
] as const;
