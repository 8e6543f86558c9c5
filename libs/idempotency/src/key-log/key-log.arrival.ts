import type { RequestFingerprint, StoredResponse } from './key-log.events.js';
import type { KeyInFlight, KeyState } from './key-log.state.js';

/** What to do with a request that arrives for a key, given the key's state. */
export type ArrivalDecision =
  | { readonly kind: 'claim' }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'reused'; readonly original: RequestFingerprint }
  | { readonly kind: 'in-flight'; readonly retryAfterSeconds: number }
  | { readonly kind: 'take-over'; readonly state: KeyInFlight };

const sameRequest = (a: RequestFingerprint, b: RequestFingerprint): boolean =>
  a.method === b.method && a.route === b.route && a.requestHash === b.requestHash;

/**
 * The arrival decision (docs/ARCHITECTURE.md "The key log"), a pure function of the key's state, the request and the time:
 * a different method, route or request hash is a reuse (422); a completed key replays; a live lease is in flight
 * (409, retry after the lease); an expired lease is taken over; an absent or released key is claimed.
 *
 * @param now epoch milliseconds from the engine's clock.
 * @example
 * decideArrival({ status: 'absent' }, { method: 'POST', route: '/invoices', requestHash: 'ab…' }, Date.now());
 * // { kind: 'claim' }
 */
export const decideArrival = (state: KeyState, request: RequestFingerprint, now: number): ArrivalDecision => {
  switch (state.status) {
    case 'absent':
    case 'released':
      return { kind: 'claim' };
    case 'completed':
      return sameRequest(state.fingerprint, request)
        ? { kind: 'replay', response: state.response }
        : { kind: 'reused', original: state.fingerprint };
    case 'inFlight':
      if (!sameRequest(state.fingerprint, request)) return { kind: 'reused', original: state.fingerprint };
      return now < state.leaseExpiresAt
        ? { kind: 'in-flight', retryAfterSeconds: retryAfterSeconds(state.leaseExpiresAt - now) }
        : { kind: 'take-over', state };
    default: {
      const _exhaustive: never = state;
      return _exhaustive;
    }
  }
};

/** Whole seconds until a lease ends, at least 1 (`Retry-After` takes integer seconds). */
export const retryAfterSeconds = (milliseconds: number): number =>
  Math.max(1, Math.ceil(milliseconds / 1000));
