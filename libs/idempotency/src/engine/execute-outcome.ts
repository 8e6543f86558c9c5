import type { GlobalPosition } from '@once/event-store';
import type { StoredResponse } from '../key-log/index.js';
import type { RequestFingerprint } from '../key-log/index.js';

/** Which protocol ran a request. */
export type EngineProtocol = 'atomic' | 'phased';

/**
 * What became of a keyed request:
 * - `first`: the handler ran and its response is stored (`resumed` when it finished someone else's work);
 * * - `replay`: the key was completed before: the stored response, byte for byte, and where it was completed;
 * - `in-flight`: another holder has a live lease (409, retry after the seconds given);
 * - `reused`: the key belongs to a different request (422), nothing written;
 * - `expired`: the key was used before, its log has expired, and the events it derives are already in `stream`: its
 *   effect is recorded and its answer no longer kept (422), nothing written;
 * - `released`: nothing is stored and the key is free (handler error or a 5xx): the next try runs fresh;
 * - `unavailable`: a retryable failure (503): contention, a store failure, or effects left for a resume.
 */
export type ExecuteOutcome =
  | {
      readonly kind: 'first';
      readonly response: StoredResponse;
      readonly protocol: EngineProtocol;
      readonly resumed: boolean;
      /** Where this execution's own appends reached in the global order: the token to read the write back at. */
      readonly position?: GlobalPosition;
    }
  | {
      readonly kind: 'replay';
      readonly response: StoredResponse;
      /**
       * Where the key's `IdempotencyKeyCompleted` sits in the global order (from the key events the engine read
       * anyway), absent when the read had none. A safe token to wait for before reading the write back: the
       * completion commits with the effects (atomic protocol) or after them (phased), and a global read never ends
       * inside a write, so a projection whose checkpoint reached it has applied the effects too.
       */
      readonly position?: GlobalPosition;
    }
  | { readonly kind: 'in-flight'; readonly retryAfterSeconds: number }
  | { readonly kind: 'reused'; readonly original: RequestFingerprint }
  | {
      readonly kind: 'expired';
      /** The aggregate the key's earlier effect is recorded in (for logs: never shown to a client). */
      readonly stream: string;
    }
  | {
      readonly kind: 'released';
      readonly reason: 'handler-error' | 'server-error-response';
      /** The 5xx the handler answered, sent once and not stored. */
      readonly response?: StoredResponse;
      readonly error?: unknown;
      /** Where this execution's appends reached, when it wrote (a release, a claim). */
      readonly position?: GlobalPosition;
    }
  | {
      readonly kind: 'unavailable';
      readonly reason: 'contention' | 'store-error' | 'effects-pending';
      readonly retryAfterSeconds: number;
      readonly error?: unknown;
      /** Where this execution's appends reached, when it wrote (effects left for a resume have a position too). */
      readonly position?: GlobalPosition;
    };

export type ExecuteOutcomeKind = ExecuteOutcome['kind'];
