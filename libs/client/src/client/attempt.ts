import { formatIdempotencyKeyHeader } from '../intent/index.js';
import type { Intent } from '../intent/index.js';

/** What one HTTP exchange produced. */
export type AttemptResult =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly statusText: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly bodyText: string;
    }
  | { readonly kind: 'network'; readonly error: unknown }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' };

/** Everything one attempt needs besides the intent. */
export interface AttemptContext {
  readonly fetch: typeof globalThis.fetch;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Why the attempt's fetch was aborted when it ran out of time: an `Error` named `TimeoutError`, as the web platform
 * names it, built without `DOMException`, which some runtimes (React Native's Hermes) do not have.
 */
const attemptTimedOut = (): Error =>
  Object.assign(new Error('The attempt timed out'), { name: 'TimeoutError' });

/** Read through a function so the compiler does not assume an earlier check still holds after an await. */
const isAborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

const headersToRecord = (headers: Headers): Record<string, string> => {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
};

/**
 * Sends the intent once, with its key, and reads the whole body, all under one timeout: a server that stalls
 * halfway through the body is a timeout too. Never throws for network trouble; says what happened instead.
 *
 * @param intent the stored intent.
 * @param context fetch, target, per-attempt headers, timeout and the caller's abort signal.
 * @example
 * const result = await sendAttempt(intent, { fetch, url, headers: {}, timeoutMs: 5_000, signal: undefined });
 */
export const sendAttempt = async (intent: Intent, context: AttemptContext): Promise<AttemptResult> => {
  if (isAborted(context.signal)) return { kind: 'aborted' };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(attemptTimedOut());
  }, context.timeoutMs);
  const abortFromCaller = () => controller.abort(context.signal?.reason);
  context.signal?.addEventListener('abort', abortFromCaller, { once: true });
  try {
    const response = await context.fetch(context.url, {
      method: intent.request.method,
      headers: {
        ...intent.request.headers,
        ...context.headers,
        'idempotency-key': formatIdempotencyKeyHeader(intent.key),
      },
      ...(intent.request.bodyText === undefined ? {} : { body: intent.request.bodyText }),
      signal: controller.signal,
    });
    const bodyText = await response.text();
    return {
      kind: 'response',
      status: response.status,
      statusText: response.statusText,
      headers: headersToRecord(response.headers),
      bodyText,
    };
  } catch (error) {
    if (timedOut) return { kind: 'timeout' };
    if (isAborted(context.signal)) return { kind: 'aborted' };
    return { kind: 'network', error };
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener('abort', abortFromCaller);
  }
};
