import { createHash } from 'node:crypto';
import type { AttemptRecord, AttemptStatus } from '../history/index.js';

const keyOf = (init: RequestInit | undefined): string => {
  const header = new Headers(init?.headers).get('idempotency-key') ?? '';
  return header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header;
};

const failureStatus = (error: unknown): AttemptStatus =>
  error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')
    ? 'timeout'
    : 'network';

/**
 * A `fetch` for the client that records every attempt it sends: the key, the attempt's number for that key, when it
 * left and came back, the status (or why there was none) and the hash of the body it read.
 *
 * @example
 * const client = createIdempotentClient({ storage, baseUrl, fetch: recordingFetch(history.record, intentOfKey) });
 */
export const recordingFetch = (
  record: (attempt: AttemptRecord) => void,
  intentOfKey: (key: string) => string,
  fetchFn: typeof globalThis.fetch = globalThis.fetch,
): typeof globalThis.fetch => {
  const attempts = new Map<string, number>();
  return async (input, init) => {
    const key = keyOf(init);
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    const sentAt = Date.now();
    const base = { type: 'attempt' as const, intent: intentOfKey(key), key, attempt, sentAt };
    let response: Response;
    try {
      response = await fetchFn(input, init);
    } catch (error) {
      record({ ...base, receivedAt: Date.now(), status: failureStatus(error) });
      throw error;
    }
    try {
      const body = await response.clone().arrayBuffer();
      record({
        ...base,
        receivedAt: Date.now(),
        status: response.status,
        bodyHash: createHash('sha256').update(Buffer.from(body)).digest('hex'),
        replayed: response.headers.get('idempotent-replayed') === 'true',
      });
    } catch (error) {
      record({ ...base, receivedAt: Date.now(), status: failureStatus(error) });
    }
    return response;
  };
};
