import { UUID_NAMESPACE_URL, uuidV5 } from './uuid-v5.js';

/** Who sent a key: keys never replay across tenants or actors. */
export interface IdempotencyScope {
  readonly tenantId: string;
  readonly actorId: string;
}

/** The name space of every ID Once derives from an idempotency key. */
export const ONCE_ID_NAMESPACE = uuidV5('urn:once:idempotency:ids', UUID_NAMESPACE_URL);

/**
 * The deterministic ID of the `index`-th thing a keyed command creates for `streamOrPurpose`: event IDs use the
 * stream name, entity IDs a purpose such as `'payment'`. Re-deciding the same command gives the same IDs, which is
 * how the store recognises a retried append.
 *
 * @example
 * deriveId({ tenantId: 't1', actorId: 'a1' }, 'key-123456', 'invoice-42', 0); // the same UUIDv5 every time
 */
export const deriveId = (
  scope: IdempotencyScope,
  key: string,
  streamOrPurpose: string,
  index: number,
): string =>
  // A JSON array keeps the parts apart: no separator inside a key can make two different tuples collide.
  uuidV5(JSON.stringify([scope.tenantId, scope.actorId, key, streamOrPurpose, index]), ONCE_ID_NAMESPACE);
