import type { Subscription } from '../port/index.js';

/** The running subscriptions of one store, so closing the store stops them instead of leaving them to fail. */
export interface SubscriptionRegistry {
  /** Remembers a subscription until it ends; returns it. */
  track(subscription: Subscription): Subscription;
  /** Stops every running subscription and waits for each to finish its batch in hand. */
  stopAll(): Promise<void>;
}

/**
 * Creates an empty registry.
 *
 * @example
 * const subscriptions = createSubscriptionRegistry();
 * const subscription = subscriptions.track(subscribeByPolling(readAll, options));
 * await subscriptions.stopAll();
 */
export const createSubscriptionRegistry = (): SubscriptionRegistry => {
  const running = new Set<Subscription>();
  return {
    track: (subscription) => {
      running.add(subscription);
      const forget = (): void => {
        running.delete(subscription);
      };
      subscription.done.then(forget, forget);
      return subscription;
    },
    stopAll: async () => {
      await Promise.all([...running].map((subscription) => subscription.stop()));
    },
  };
};
