import { hash } from 'node:crypto';
import type { IdempotencyScope } from '../ids/index.js';

/** Prefix of every key stream, for global reads filtered by stream prefix. */
export const KEY_STREAM_PREFIX = 'idem-';

/** A key with its scope as one unambiguous string: what its stream's name hashes, and what memory knows it by. */
export const scopedKey = (scope: IdempotencyScope, key: string): string =>
  JSON.stringify([scope.tenantId, scope.actorId, key]);

/**
 * The key stream of a scoped key: `idem-<base64url of the first 128 bits of sha256(tenantId, actorId, key)>`, 27
 * characters. The raw key lives in the events, not the name, so names never carry client text; and a name is short
 * because it is written many times over (the events' stream column and two of their indexes, the stream head and two
 * of its indexes, the key table's row and two of its indexes).
 *
 * @example
 * keyStreamName({ tenantId: 't1', actorId: 'a1' }, 'key-12345678'); // 'idem-Xq3…' (22 characters after the prefix)
 */
export const keyStreamName = (scope: IdempotencyScope, key: string): string => {
  const digest = hash('sha256', scopedKey(scope, key), 'buffer');
  return `${KEY_STREAM_PREFIX}${digest.toString('base64url', 0, 16)}`;
};
