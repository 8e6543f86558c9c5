import type { OfflineQueue } from './offline-queue.js';

/** The slice of `window` the wiring needs. */
export interface ConnectivityTarget {
  addEventListener(type: 'online' | 'offline', listener: () => void): void;
  removeEventListener(type: 'online' | 'offline', listener: () => void): void;
  readonly navigator?: { readonly onLine?: boolean };
}

/**
 * Feeds a queue the browser's `online` / `offline` events (and `navigator.onLine` now).
 * `navigator.onLine` can claim online without a working network; the retry policy covers that case.
 *
 * @param queue the queue to pause and resume.
 * @param target `window` by default.
 * @returns a function that removes the listeners.
 * @example
 * const disconnect = connectBrowserConnectivity(queue);
 */
export const connectBrowserConnectivity = (
  queue: Pick<OfflineQueue, 'setOnline'>,
  target: ConnectivityTarget = globalThis as unknown as ConnectivityTarget,
): (() => void) => {
  const goOnline = () => queue.setOnline(true);
  const goOffline = () => queue.setOnline(false);
  if (typeof target.navigator?.onLine === 'boolean') queue.setOnline(target.navigator.onLine);
  target.addEventListener('online', goOnline);
  target.addEventListener('offline', goOffline);
  return () => {
    target.removeEventListener('online', goOnline);
    target.removeEventListener('offline', goOffline);
  };
};
