import type { Pool } from 'pg';
import type { CommandHandlers, IdempotencyEngine } from '@once/idempotency';
import { findUnresumableKeys } from '@once/read-models';

/** The api's engine and handlers, as the completer resumes keys with them. */
export interface UnresumableKeysSource {
  readonly pool: Pool;
  readonly engine: IdempotencyEngine;
  readonly handlers: CommandHandlers;
}

/**
 * Keys in flight with an ended lease that the completer passes over (no handler of this api resumes their
 * command), for the console; one tenant's, or every tenant's when `tenantId` is omitted (the metric).
 *
 * @example
 * const keys = await listUnresumableKeys({ pool, engine, handlers }, tenantId);
 */
export const listUnresumableKeys = async (source: UnresumableKeysSource, tenantId?: string) =>
  (
    await findUnresumableKeys(source.pool, {
      engine: source.engine,
      handlers: source.handlers,
      now: new Date(source.engine.now()),
      ...(tenantId === undefined ? {} : { tenantId }),
    })
  ).map((key) => ({
    key: key.key,
    commandType: key.commandType,
    leaseExpiredAt: key.leaseExpiredAt,
  }));
