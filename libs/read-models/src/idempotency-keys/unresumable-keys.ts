import type { Pool } from 'pg';
import { resumeOf } from '@once/idempotency';
import type { CommandHandlers, IdempotencyEngine } from '@once/idempotency';
import type { UnresumableKey } from './abandoned-key-completer.js';
import { abandonedKeyCursor, listAbandonedKeys } from './idempotency-keys.queries.js';
import type { AbandonedKeyCursor } from './idempotency-keys.queries.js';

export interface FindUnresumableKeysOptions {
  readonly engine: IdempotencyEngine;
  readonly handlers: CommandHandlers;
  readonly now: Date;
  /** Only this tenant's keys; every tenant's when omitted. */
  readonly tenantId?: string;
  /** Abandoned keys looked at, at most (their key logs are read). Default 1,000. */
  readonly scanLimit?: number;
}

/**
 * Keys in flight with an ended lease that the completer passes over because no handler here resumes their command:
 * what an operator must settle. Walks the abandoned keys as the completer does (lease end, then stream) and reads
 * each one's claim from its key log.
 *
 * @example
 * const keys = await findUnresumableKeys(pool, { engine, handlers, now: new Date(), tenantId });
 */
export const findUnresumableKeys = async (
  pool: Pool,
  options: FindUnresumableKeysOptions,
): Promise<readonly UnresumableKey[]> => {
  const scanLimit = options.scanLimit ?? 1_000;
  const found: UnresumableKey[] = [];
  let after: AbandonedKeyCursor | undefined;
  for (let scanned = 0; scanned < scanLimit;) {
    const rows = await listAbandonedKeys(pool, {
      now: options.now,
      limit: Math.min(100, scanLimit - scanned),
      ...(after === undefined ? {} : { after }),
      ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
    });
    for (const row of rows) {
      const state = await options.engine.readKeyState(row.stream);
      if (state.status !== 'inFlight') continue;
      const resume = resumeOf(state.claim, options.handlers);
      if (resume.kind === 'resumable') continue;
      found.push({
        stream: row.stream,
        tenantId: row.tenant_id,
        key: row.key,
        commandType: resume.commandType,
        leaseExpiredAt: row.locked_until ?? row.updated_at,
      });
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < 100) break;
    scanned += rows.length;
    after = abandonedKeyCursor(last);
  }
  return found;
};
