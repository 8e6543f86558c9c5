/** Waits `ms` milliseconds; resolves early (without throwing) when the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The platform sleep, over `setTimeout`.
 *
 * @param ms how long to wait.
 * @param signal ends the wait early.
 * @example
 * await sleep(300);
 */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
