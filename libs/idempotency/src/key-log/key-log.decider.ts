import type {
  IdempotencyEffectPlannedData,
  IdempotencyKeyClaimedData,
  KeyLogEvent,
  RequestFingerprint,
  StoredResponse,
} from './key-log.events.js';
import { KeyLogCorruptedError } from './key-log.state.js';
import type { KeyInFlight, KeyState } from './key-log.state.js';

/** What to do with a request that arrives for a key, given the key's state. */
export type ArrivalDecision =
  | { readonly kind: 'claim' }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'reused'; readonly original: RequestFingerprint }
  | { readonly kind: 'in-flight'; readonly retryAfterSeconds: number }
  | { readonly kind: 'take-over'; readonly state: KeyInFlight };

const sameRequest = (
  recorded: RequestFingerprint,
  arriving: RequestFingerprint,
  alsoHashes: readonly string[],
): boolean =>
  recorded.method === arriving.method &&
  recorded.route === arriving.route &&
  (recorded.requestHash === arriving.requestHash || alsoHashes.includes(recorded.requestHash));

/** Whole seconds until a lease ends, at least 1 (`Retry-After` takes integer seconds). */
export const retryAfterSeconds = (milliseconds: number): number =>
  Math.max(1, Math.ceil(milliseconds / 1000));

/**
 * The arrival decision (docs/ARCHITECTURE.md "The key log"), a pure function of the key's state, the request and the time:
 * a different method, route or request hash is a reuse (422); a completed key replays; a live lease is in flight
 * (409, retry after the lease); an expired lease is taken over; an absent or released key is claimed.
 *
 * @param now epoch milliseconds from the engine's clock.
 * @param alsoHashes the arriving request's hash under older keys (a request with secret fields is hashed with their
 *   keyed references, and a claim made before the server key changed was hashed under the older key).
 * @example
 * decideArrival({ status: 'absent' }, { method: 'POST', route: '/invoices', requestHash: 'ab…' }, Date.now());
 * // { kind: 'claim' }
 */
export const decideArrival = (
  state: KeyState,
  request: RequestFingerprint,
  now: number,
  alsoHashes: readonly string[] = [],
): ArrivalDecision => {
  switch (state.status) {
    case 'absent':
    case 'released':
      return { kind: 'claim' };
    case 'completed':
      return sameRequest(state.fingerprint, request, alsoHashes)
        ? { kind: 'replay', response: state.response }
        : { kind: 'reused', original: state.fingerprint };
    case 'inFlight':
      if (!sameRequest(state.fingerprint, request, alsoHashes))
        return { kind: 'reused', original: state.fingerprint };
      return now < state.leaseExpiresAt
        ? { kind: 'in-flight', retryAfterSeconds: retryAfterSeconds(state.leaseExpiresAt - now) }
        : { kind: 'take-over', state };
    default: {
      const _exhaustive: never = state;
      return _exhaustive;
    }
  }
};

/** What a holder asks of the key log. Every key-log event the engine writes is decided here, from the key's state. */
export type KeyLogInput =
  | {
      /** Claims an absent or released key; `then` travels in the same append (a decision made before the claim). */
      readonly type: 'Claim';
      readonly claim: Omit<IdempotencyKeyClaimedData, keyof RequestFingerprint>;
      readonly request: RequestFingerprint;
      readonly then?:
        | { readonly type: 'Complete'; readonly response: StoredResponse }
        | { readonly type: 'Plan'; readonly plan: IdempotencyEffectPlannedData };
      /** Claimed and completed in one commit with the effects: the completion alone is the key's whole log. */
      readonly atomic?: boolean;
    }
  | {
      /** Takes over an in-flight key whose lease has ended. */
      readonly type: 'TakeOver';
      readonly holder: string;
      readonly now: number;
      readonly leaseExpiresAt: string;
    }
  | { readonly type: 'Plan'; readonly plan: IdempotencyEffectPlannedData }
  | {
      readonly type: 'ReachStep';
      readonly holder: string;
      readonly point: string;
      readonly leaseExpiresAt: string;
      /** Absent: the external call is about to run. Present: it ran, and this is its result. */
      readonly finished?: { readonly data: unknown };
    }
  | {
      readonly type: 'Complete';
      readonly holder: string;
      readonly request: RequestFingerprint;
      readonly response: StoredResponse;
    }
  | {
      /** Gives the key up after a failure; refused while an effect or a step may have reached the outside. */
      readonly type: 'Release';
      readonly holder: string;
      readonly reason: string;
      readonly maybeApplied: boolean;
    };

/** The events to append, or why none: the key must stay in flight for the next holder. */
export type KeyLogDecision =
  | { readonly kind: 'append'; readonly events: readonly KeyLogEvent[] }
  | { readonly kind: 'keep'; readonly reason: 'effects-pending' };

const held = (state: KeyState, holder: string, input: KeyLogInput['type']): KeyInFlight => {
  if (state.status !== 'inFlight') throw new KeyLogCorruptedError(input, state.status);
  if (state.holder !== holder)
    throw new KeyLogCorruptedError(`${input} by a holder that lost the lease`, state.status);
  return state;
};

const append = (...events: KeyLogEvent[]): KeyLogDecision => ({ kind: 'append', events });

/**
 * The key log's decider: pure, from the key's state and what the holder asks, to the events to append. The engine's
 * protocols only read, call `decideArrival` and this, and append (fenced at the revision they read).
 *
 * @example
 * decideKeyLog({ status: 'absent' }, { type: 'Claim', claim, request, then: { type: 'Complete', response }, atomic: true });
 * // { kind: 'append', events: [{ type: 'IdempotencyKeyCompleted', data: { ...request, response, holder, claim: … } }] }
 */
export const decideKeyLog = (state: KeyState, input: KeyLogInput): KeyLogDecision => {
  switch (input.type) {
    case 'Claim': {
      if (state.status === 'inFlight' || state.status === 'completed') {
        throw new KeyLogCorruptedError('Claim', state.status);
      }
      const { claim, request, then } = input;
      if (input.atomic) {
        if (then?.type !== 'Complete') throw new Error('an atomic claim completes in the same commit');
        const who = { tenantId: claim.tenantId, actorId: claim.actorId, key: claim.key };
        return append({
          type: 'IdempotencyKeyCompleted',
          data: { ...request, response: then.response, holder: claim.holder, claim: who },
        });
      }
      const claimed: KeyLogEvent = { type: 'IdempotencyKeyClaimed', data: { ...request, ...claim } };
      if (then === undefined) return append(claimed);
      return then.type === 'Complete'
        ? append(claimed, {
            type: 'IdempotencyKeyCompleted',
            data: { ...request, response: then.response, holder: claim.holder },
          })
        : append(claimed, { type: 'IdempotencyEffectPlanned', data: then.plan });
    }
    case 'TakeOver': {
      if (state.status !== 'inFlight') throw new KeyLogCorruptedError('TakeOver', state.status);
      if (input.now < state.leaseExpiresAt)
        throw new KeyLogCorruptedError('TakeOver of a live lease', state.status);
      return append({
        type: 'IdempotencyLeaseTaken',
        data: { holder: input.holder, previousHolder: state.holder, leaseExpiresAt: input.leaseExpiresAt },
      });
    }
    case 'Plan':
      held(state, input.plan.holder, input.type);
      return append({ type: 'IdempotencyEffectPlanned', data: input.plan });
    case 'ReachStep': {
      held(state, input.holder, input.type);
      const base = { point: input.point, holder: input.holder, leaseExpiresAt: input.leaseExpiresAt };
      return append({
        type: 'IdempotencyRecoveryPointReached',
        data: input.finished
          ? { ...base, stage: 'finished', data: input.finished.data }
          : { ...base, stage: 'started' },
      });
    }
    case 'Complete':
      held(state, input.holder, input.type);
      return append({
        type: 'IdempotencyKeyCompleted',
        data: { ...input.request, response: input.response, holder: input.holder },
      });
    case 'Release':
      held(state, input.holder, input.type);
      if (input.maybeApplied) return { kind: 'keep', reason: 'effects-pending' };
      return append({ type: 'IdempotencyKeyReleased', data: { reason: input.reason, holder: input.holder } });
    default: {
      const _exhaustive: never = input;
      return _exhaustive;
    }
  }
};
