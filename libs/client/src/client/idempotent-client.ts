import { isValidIdempotencyKey, toStoredRequest } from '../intent/index.js';
import type { Intent, IntentRequest } from '../intent/index.js';
import { resolveRetryPolicy, retryDelay } from '../retry/index.js';
import type { RandomSource, RetryPolicy } from '../retry/index.js';
import type { IntentStorage } from '../storage/index.js';
import { uuidV7 } from '../uuid/index.js';
import { sendAttempt } from './attempt.js';
import { classifyResponse } from './classify-response.js';
import type { AttemptFailure, GaveUpReason, SubmitOutcome } from './outcome.js';
import { sleep as platformSleep } from './sleep.js';
import type { Sleep } from './sleep.js';
import { sameOriginUrl } from './same-origin-url.js';

/** Headers added to every attempt and never stored (credentials live here). */
export type HeaderSource = () => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;

/** How to build an {@link IdempotentClient}. Only `storage` is required. */
export interface IdempotentClientOptions {
  /** Where intents wait for a definitive answer. */
  readonly storage: IntentStorage;
  /** Paths resolve against this; in a browser it defaults to the page's address. */
  readonly baseUrl?: string | URL;
  /** Asked before every attempt, so a refreshed token is picked up. */
  readonly headers?: HeaderSource;
  readonly retry?: Partial<RetryPolicy>;
  readonly fetch?: typeof globalThis.fetch;
  /** Milliseconds since the epoch. */
  readonly now?: () => number;
  readonly sleep?: Sleep;
  readonly random?: RandomSource;
  /** Makes a new key; UUIDv7 by default. */
  readonly generateKey?: () => string;
}

/** Per-submit overrides. */
export interface SubmitOptions {
  /** Stops the submission: the attempt in progress is aborted and the outcome is `gave-up` / `aborted`. */
  readonly signal?: AbortSignal;
  readonly retry?: Partial<RetryPolicy>;
}

/** `post()` settings: those of `submit`, a key of your own, and headers stored with the intent. */
export interface PostOptions extends SubmitOptions {
  readonly key?: string;
  readonly headers?: IntentRequest['headers'];
}

/** An HTTP client that gives every user intent one key and retries it safely. */
export interface IdempotentClient {
  readonly storage: IntentStorage;
  /**
   * Makes the intent's key (once) and stores `{ key, request, createdAt }` before anything is sent.
   * Pass `key` to use one of your own (8 to 255 visible ASCII characters).
   */
  createIntent(request: IntentRequest, options?: { readonly key?: string }): Promise<Intent>;
  /**
   * Sends the intent until a definitive answer, every attempt with the intent's key. A definitive answer removes
   * the stored intent (except a 401/403 rejection); `gave-up` keeps it for a later submit.
   */
  submit(intent: Intent, options?: SubmitOptions): Promise<SubmitOutcome>;
  /**
   * The common case in one call: `createIntent({ method: 'POST', path, body })`, then `submit` it. A `gave-up`
   * outcome leaves the intent stored under its key, for `pendingIntents()` to send again later.
   */
  post(path: string, body?: unknown, options?: PostOptions): Promise<SubmitOutcome>;
  /** Stored intents without a definitive answer yet, oldest first: resubmit them after a reload or restart. */
  pendingIntents(): Promise<Intent[]>;
  /** Drops a stored intent the user abandoned. */
  discard(key: string): Promise<void>;
}

const defaultBaseUrl = (): string | undefined => {
  const location: unknown = (globalThis as { location?: unknown }).location;
  return typeof location === 'object' &&
    location !== null &&
    'href' in location &&
    typeof location.href === 'string'
    ? location.href
    : undefined;
};

/**
 * Creates an {@link IdempotentClient}.
 *
 * @param options storage, target and the injectable clock, sleep and random source.
 * @example
 * const client = createIdempotentClient({ storage: createMemoryIntentStorage(), baseUrl: 'https://api.example' });
 * const intent = await client.createIntent({ method: 'POST', path: '/invoices', body: { total: 1200 } });
 * const outcome = await client.submit(intent);
 * if (outcome.kind === 'succeeded') console.log(outcome.body, outcome.replayed);
 */
export const createIdempotentClient = (options: IdempotentClientOptions): IdempotentClient => {
  const { storage } = options;
  const defaultPolicy = resolveRetryPolicy(options.retry);
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? platformSleep;
  const random = options.random ?? Math.random;
  const generateKey = options.generateKey ?? uuidV7;
  const baseUrl = options.baseUrl ?? defaultBaseUrl();

  const createIntent: IdempotentClient['createIntent'] = async (request, intentOptions) => {
    const key = intentOptions?.key ?? generateKey();
    if (!isValidIdempotencyKey(key))
      throw new TypeError('An idempotency key has 8 to 255 visible ASCII characters');
    const stored = toStoredRequest(request);
    // Fail on a path that cannot become a URL on the api, or would take the credentials elsewhere, now: not after
    // the intent is stored and queued.
    sameOriginUrl(stored.path, baseUrl);
    const intent: Intent = { key, request: stored, createdAt: now() };
    await storage.save(intent);
    return intent;
  };

  const submit: IdempotentClient['submit'] = async (intent, submitOptions = {}) => {
    const policy =
      submitOptions.retry === undefined
        ? defaultPolicy
        : resolveRetryPolicy({ ...defaultPolicy, ...submitOptions.retry });
    const { signal } = submitOptions;
    const url = sameOriginUrl(intent.request.path, baseUrl);
    const deadline = now() + policy.deadlineMs;
    let lastFailure: AttemptFailure | undefined;
    let attempts = 0;
    const gaveUp = (reason: GaveUpReason): SubmitOutcome => ({
      kind: 'gave-up',
      key: intent.key,
      reason,
      lastFailure,
      attempts,
    });

    for (;;) {
      const remaining = deadline - now();
      if (remaining <= 0) return gaveUp('deadline');
      if (signal?.aborted === true) return gaveUp('aborted');
      const timeoutMs = Math.min(policy.attemptTimeoutMs, remaining);
      attempts += 1;
      const result = await sendAttempt(intent, {
        fetch: fetchFn,
        url,
        headers: { ...(await options.headers?.()) },
        timeoutMs,
        signal,
      });
      let retryAfterMs: number | undefined;
      switch (result.kind) {
        case 'aborted':
          return gaveUp('aborted');
        case 'network':
          lastFailure = { kind: 'network', error: result.error };
          break;
        case 'timeout':
          lastFailure = { kind: 'timeout', timeoutMs };
          break;
        case 'response': {
          const verdict = classifyResponse(result, now());
          const answer = {
            key: intent.key,
            status: result.status,
            headers: result.headers,
            bodyText: result.bodyText,
            attempts,
          };
          if (verdict.kind === 'succeeded') {
            await storage.remove(intent.key);
            return { kind: 'succeeded', ...answer, body: verdict.body, replayed: verdict.replayed };
          }
          if (verdict.kind === 'rejected') {
            if (verdict.final) await storage.remove(intent.key);
            return {
              kind: 'rejected',
              ...answer,
              problem: verdict.problem,
              replayed: verdict.replayed,
              final: verdict.final,
            };
          }
          lastFailure = {
            kind: 'status',
            status: result.status,
            problem: verdict.problem,
            retryAfterMs: verdict.retryAfterMs,
          };
          retryAfterMs = verdict.retryAfterMs;
          break;
        }
        default: {
          const _exhaustive: never = result;
          return _exhaustive;
        }
      }
      const retry = attempts - 1;
      if (retry >= policy.maxRetries) return gaveUp('retries-exhausted');
      const delay = retryDelay(policy, retry, random, retryAfterMs);
      if (now() + delay >= deadline) return gaveUp('deadline');
      await sleep(delay, signal);
    }
  };

  const post: IdempotentClient['post'] = async (path, body, postOptions = {}) => {
    const { key, headers, ...submitOptions } = postOptions;
    const intent = await createIntent(
      { method: 'POST', path, body, ...(headers === undefined ? {} : { headers }) },
      key === undefined ? undefined : { key },
    );
    return submit(intent, submitOptions);
  };

  return {
    storage,
    createIntent,
    submit,
    post,
    pendingIntents: () => storage.list(),
    discard: (key) => storage.remove(key),
  };
};
