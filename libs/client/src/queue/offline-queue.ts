import type { GaveUp, IdempotentClient, Rejected, Sleep, Succeeded } from '../client/index.js';
import { sleep as platformSleep } from '../client/index.js';
import type { Intent, IntentRequest } from '../intent/index.js';

/** What the queue reports, in the order it happens. */
export type QueueEvent =
  /** The server carried out the intent; it is off the queue. */
  | { readonly type: 'succeeded'; readonly intent: Intent; readonly outcome: Succeeded }
  /** A definitive refusal (for example 422 "held for review"): off the queue, for the caller to show. */
  | { readonly type: 'rejected'; readonly intent: Intent; readonly outcome: Rejected }
  /** 401/403: the intent stays first in line and the queue waits for {@link OfflineQueue.resume} (new credentials). */
  | { readonly type: 'blocked'; readonly intent: Intent; readonly outcome: Rejected }
  /** No definitive answer this round: the intent stays first in line and is sent again later, same key. */
  | { readonly type: 'gave-up'; readonly intent: Intent; readonly outcome: GaveUp }
  /**
   * Older than `maxAgeMs`: the server may have forgotten its key, so sending it now could act twice. Taken off the
   * queue unsent; enqueue it again (a new key) or drop it once you know what the server did.
   */
  | { readonly type: 'expired'; readonly intent: Intent }
  /** Storage failed; the queue tries again later. */
  | { readonly type: 'storage-error'; readonly error: unknown }
  /** Nothing is left to send. */
  | { readonly type: 'drained' };

/** How to build an {@link OfflineQueue}. */
export interface OfflineQueueOptions {
  /** Its storage is the queue: give each queue a client with storage of its own. */
  readonly client: IdempotentClient;
  /** Whether the network is up at the start (default true). */
  readonly online?: boolean;
  /** How long to wait before sending an intent again after the client gave up on it (default 30 s). */
  readonly retryIntervalMs?: number;
  /**
   * Intents older than this are not sent but reported `expired`. Default {@link DEFAULT_KEY_RETENTION_MS}, the
   * server's default key retention; set it to your server's `ONCE_KEY_RETENTION_SECONDS` (in milliseconds) or below.
   * `Infinity` sends intents of any age, for a server that keeps keys for ever.
   */
  readonly maxAgeMs?: number;
  /** Milliseconds since the epoch, to age intents. */
  readonly now?: () => number;
  readonly sleep?: Sleep;
}

/** How long a Once server keeps a key by default (`ONCE_KEY_RETENTION_SECONDS`, 24 h), in milliseconds. */
export const DEFAULT_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** A durable FIFO of intents, sent one at a time, in order, each until a definitive answer. */
export interface OfflineQueue {
  /** Creates the intent (its key made and stored now) at the back of the queue. */
  enqueue(request: IntentRequest, options?: { readonly key?: string }): Promise<Intent>;
  /** Feed the network state: offline pauses the queue (aborting the attempt in progress), online resumes it. */
  setOnline(online: boolean): void;
  readonly online: boolean;
  /** Starts sending, beginning with whatever a previous run left in storage. */
  start(): void;
  /** Stops sending and waits until the queue has let go of the intent in progress (which stays stored). */
  stop(): Promise<void>;
  /** Continues after a `blocked` event, sending the same intent again first. */
  resume(): void;
  /** Listens to {@link QueueEvent}s; returns the unsubscribe function. */
  subscribe(listener: (event: QueueEvent) => void): () => void;
  /** Resolves the next time the queue finds nothing left to send. */
  whenDrained(): Promise<void>;
  /** The intents still waiting, first in line first. */
  pending(): Promise<Intent[]>;
}

const waitForWake = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * Creates an {@link OfflineQueue} over a client. Items leave the queue only on a definitive answer: a 2xx or a
 * final 4xx (reported as `rejected`). Anything else keeps the item first in line, so later items never overtake it.
 *
 * @param options the client whose storage holds the queue, and the starting network state.
 * @example
 * const queue = createOfflineQueue({ client });
 * queue.subscribe((event) => {
 *   if (event.type === 'rejected') showHeldForReview(event.intent, event.outcome.problem);
 * });
 * queue.start();
 * await queue.enqueue({ method: 'POST', path: '/orders', body: { table: 4, items: [] } });
 */
export const createOfflineQueue = (options: OfflineQueueOptions): OfflineQueue => {
  const { client } = options;
  const retryIntervalMs = options.retryIntervalMs ?? 30_000;
  const sleep = options.sleep ?? platformSleep;
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_KEY_RETENTION_MS;
  const listeners = new Set<(event: QueueEvent) => void>();
  let drainedWaiters: Array<() => void> = [];
  let drained = false;
  let online = options.online ?? true;
  let blocked = false;
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeController = new AbortController();
  let inProgress: AbortController | undefined;

  const emit = (event: QueueEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };
  const wake = (): void => {
    drained = false;
    wakeController.abort();
    wakeController = new AbortController();
  };

  const sendHead = async (head: Intent): Promise<void> => {
    if (now() - head.createdAt > maxAgeMs) {
      await client.discard(head.key);
      emit({ type: 'expired', intent: head });
      return;
    }
    inProgress = new AbortController();
    const outcome = await client.submit(head, { signal: inProgress.signal });
    inProgress = undefined;
    switch (outcome.kind) {
      case 'succeeded':
        emit({ type: 'succeeded', intent: head, outcome });
        return;
      case 'rejected':
        if (outcome.final) {
          emit({ type: 'rejected', intent: head, outcome });
        } else {
          blocked = true;
          emit({ type: 'blocked', intent: head, outcome });
        }
        return;
      case 'gave-up':
        if (outcome.reason === 'aborted') return;
        emit({ type: 'gave-up', intent: head, outcome });
        await sleep(retryIntervalMs, wakeController.signal);
        return;
      default: {
        const _exhaustive: never = outcome;
        return _exhaustive;
      }
    }
  };

  const run = async (): Promise<void> => {
    while (running) {
      if (!online || blocked) {
        await waitForWake(wakeController.signal);
        continue;
      }
      const wakeSignal = wakeController.signal;
      let head: Intent | undefined;
      try {
        [head] = await client.pendingIntents();
      } catch (error) {
        emit({ type: 'storage-error', error });
        await sleep(retryIntervalMs, wakeSignal);
        continue;
      }
      if (!running || !online || blocked) continue;
      if (head === undefined) {
        if (wakeSignal.aborted) continue;
        drained = true;
        const waiters = drainedWaiters;
        drainedWaiters = [];
        for (const resolve of waiters) resolve();
        emit({ type: 'drained' });
        await waitForWake(wakeSignal);
        continue;
      }
      try {
        await sendHead(head);
      } catch (error) {
        inProgress = undefined;
        emit({ type: 'storage-error', error });
        await sleep(retryIntervalMs, wakeController.signal);
      }
    }
  };

  return {
    enqueue: async (request, intentOptions) => {
      const intent = await client.createIntent(request, intentOptions);
      wake();
      return intent;
    },
    setOnline: (isOnline) => {
      if (isOnline === online) return;
      online = isOnline;
      if (!isOnline) inProgress?.abort();
      wake();
    },
    get online() {
      return online;
    },
    start: () => {
      if (running) return;
      running = true;
      loop = run();
    },
    stop: async () => {
      running = false;
      inProgress?.abort();
      wake();
      await loop;
      loop = undefined;
    },
    resume: () => {
      blocked = false;
      wake();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    whenDrained: () =>
      new Promise((resolve) => {
        if (drained) resolve();
        else drainedWaiters.push(resolve);
      }),
    pending: () => client.pendingIntents(),
  };
};
