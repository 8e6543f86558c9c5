import type {
  IdempotencyKeyClaimedData,
  IdempotencyEffectPlannedData,
  KeyLogEvent,
  RequestFingerprint,
  StoredResponse,
} from './key-log.events.js';

/** The state of one key: a pure fold of its key stream. */
export type KeyState =
  | { readonly status: 'absent' }
  | KeyInFlight
  | {
      readonly status: 'completed';
      readonly fingerprint: RequestFingerprint;
      readonly response: StoredResponse;
    }
  | { readonly status: 'released'; readonly fingerprint: RequestFingerprint; readonly reason: string };

export interface KeyInFlight {
  readonly status: 'inFlight';
  readonly fingerprint: RequestFingerprint;
  /** The claim as stored, with the typed command it recorded. */
  readonly claim: IdempotencyKeyClaimedData;
  readonly holder: string;
  /** Epoch milliseconds. */
  readonly leaseExpiresAt: number;
  /** The last point recorded: `started` after the claim, then effect and step names. */
  readonly recoveryPoint: string;
  /** The latest plan of each effect, by effect name. */
  readonly plans: Readonly<Record<string, IdempotencyEffectPlannedData>>;
  /** External steps by name: started (maybe ran) or finished (with the recorded result). */
  readonly steps: Readonly<
    Record<string, { readonly stage: 'started' | 'finished'; readonly data?: unknown }>
  >;
}

/** A key stream written against the protocol (for example a second claim while in flight). */
export class KeyLogCorruptedError extends Error {
  readonly code = 'key-log-corrupted';

  constructor(
    readonly eventType: string,
    readonly status: KeyState['status'],
  ) {
    super(`key log: ${eventType} cannot follow a key that is ${status}`);
    this.name = 'KeyLogCorruptedError';
  }
}

export const initialKeyState = (): KeyState => ({ status: 'absent' });

const fingerprintOf = (data: RequestFingerprint): RequestFingerprint => ({
  method: data.method,
  route: data.route,
  requestHash: data.requestHash,
});

/**
 * Folds one key-log event into the key's state. Pure. Events that only a holder writes are refused on a key
 * nobody holds, except where retention has already dropped the events before them (then they are ignored).
 *
 * @example
 * const state = events.reduce(evolveKeyState, initialKeyState());
 */
export const evolveKeyState = (state: KeyState, event: KeyLogEvent): KeyState => {
  switch (event.type) {
    case 'IdempotencyKeyClaimed': {
      if (state.status === 'inFlight' || state.status === 'completed') {
        throw new KeyLogCorruptedError(event.type, state.status);
      }
      return {
        status: 'inFlight',
        fingerprint: fingerprintOf(event.data),
        claim: event.data,
        holder: event.data.holder,
        leaseExpiresAt: Date.parse(event.data.leaseExpiresAt),
        recoveryPoint: 'started',
        plans: {},
        steps: {},
      };
    }
    case 'IdempotencyEffectPlanned': {
      if (state.status !== 'inFlight') return ignoredAfterRetention(state, event);
      return {
        ...state,
        holder: event.data.holder,
        leaseExpiresAt: Date.parse(event.data.leaseExpiresAt),
        recoveryPoint: event.data.point,
        plans: { ...state.plans, [event.data.point]: event.data },
      };
    }
    case 'IdempotencyRecoveryPointReached': {
      if (state.status !== 'inFlight') return ignoredAfterRetention(state, event);
      return {
        ...state,
        holder: event.data.holder,
        leaseExpiresAt: Date.parse(event.data.leaseExpiresAt),
        recoveryPoint: event.data.point,
        steps: {
          ...state.steps,
          [event.data.point]:
            event.data.stage === 'finished'
              ? { stage: 'finished', data: event.data.data }
              : { stage: 'started' },
        },
      };
    }
    case 'IdempotencyLeaseTaken': {
      if (state.status !== 'inFlight') return ignoredAfterRetention(state, event);
      return { ...state, holder: event.data.holder, leaseExpiresAt: Date.parse(event.data.leaseExpiresAt) };
    }
    case 'IdempotencyKeyCompleted': {
      if (state.status === 'completed' || state.status === 'released') {
        throw new KeyLogCorruptedError(event.type, state.status);
      }
      return { status: 'completed', fingerprint: fingerprintOf(event.data), response: event.data.response };
    }
    case 'IdempotencyKeyReleased': {
      if (state.status !== 'inFlight') return ignoredAfterRetention(state, event);
      return { status: 'released', fingerprint: state.fingerprint, reason: event.data.reason };
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

const ignoredAfterRetention = (state: KeyState, event: KeyLogEvent): KeyState => {
  if (state.status === 'absent') return state;
  throw new KeyLogCorruptedError(event.type, state.status);
};

/** Folds a whole key stream. */
export const foldKeyLog = (events: readonly KeyLogEvent[]): KeyState =>
  events.reduce(evolveKeyState, initialKeyState());
