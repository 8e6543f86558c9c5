/** The providers' injection tokens: the app's PostgreSQL pool and its idempotency engine. */
export const POOL = Symbol('Pool');
export const ENGINE = Symbol('IdempotencyEngine');
