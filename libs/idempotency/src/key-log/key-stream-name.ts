import { createHash } from 'node:crypto';
import type { IdempotencyScope } from '../ids/index.js';

/** Prefix of every key stream, for global reads filtered by stream prefix. */
export const KEY_STREAM_PREFIX = 'idem-';

/**
 * The key stream of a scoped key: `idem-<tenantId>-<sha256(actorId, key)>`. The raw key lives in the events, not
 * the name, so stream names stay short and never carry client text.
 *
 * @example
 * keyStreamName({ tenantId: 't1', actorId: 'a1' }, 'key-12345678'); // 'idem-t1-3f0c…'
 */
export const keyStreamName = (scope: IdempotencyScope, key: string): string =>
  `${KEY_STREAM_PREFIX}${scope.tenantId}-${createHash('sha256')
    .update(JSON.stringify([scope.actorId, key]))
    .digest('hex')}`;
