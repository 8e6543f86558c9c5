import type { Intent } from '../intent/index.js';

/**
 * Where intents wait until they get a definitive answer. One interface for every adapter (memory, file,
 * IndexedDB, localStorage), so the client and the offline queue never know which one they use.
 */
export interface IntentStorage {
  /** Stores the intent; resolves once it is durable. Saving a key again replaces it and keeps its place. */
  save(intent: Intent): Promise<void>;
  /** The stored intent with this key, if any. */
  load(key: string): Promise<Intent | undefined>;
  /** Forgets the intent with this key (no error if it is absent). */
  remove(key: string): Promise<void>;
  /** Every stored intent, in the order they were first saved. */
  list(): Promise<Intent[]>;
}

/** Why a storage adapter could not do its job. */
export type IntentStorageErrorCode = 'storage-unavailable' | 'storage-corrupted';

/** A storage failure the caller must see: intents are never dropped silently. */
export class IntentStorageError extends Error {
  override readonly name = 'IntentStorageError';

  constructor(
    readonly code: IntentStorageErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * Checks that a value read back from storage has the shape of an {@link Intent}.
 *
 * @param value what the adapter read.
 * @example
 * const intents = parsed.filter(isStoredIntent);
 */
export const isStoredIntent = (value: unknown): value is Intent => {
  if (!isRecord(value) || typeof value['key'] !== 'string' || typeof value['createdAt'] !== 'number')
    return false;
  const request = value['request'];
  return (
    isRecord(request) &&
    typeof request['method'] === 'string' &&
    typeof request['path'] === 'string' &&
    isRecord(request['headers']) &&
    (request['bodyText'] === undefined || typeof request['bodyText'] === 'string')
  );
};

/**
 * Validates a list read back from storage, throwing `storage-corrupted` instead of dropping what it cannot read.
 *
 * @param values what the adapter read.
 * @param where names the storage in the error.
 * @example
 * const intents = toStoredIntents(JSON.parse(text), '/var/lib/app/intents.json');
 */
export const toStoredIntents = (values: unknown, where: string): Intent[] => {
  if (!Array.isArray(values) || !values.every(isStoredIntent)) {
    throw new IntentStorageError('storage-corrupted', `The intents in ${where} are not readable`);
  }
  return values;
};
