/** An RFC 9457 problem document; `type` is `about:blank` when the server sent none. */
export interface ProblemDocument {
  readonly type: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly instance?: string;
  readonly [extension: string]: unknown;
}

/** Why one attempt did not produce an answer the client could keep. */
export type AttemptFailure =
  | { readonly kind: 'network'; readonly error: unknown }
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly problem: ProblemDocument;
      readonly retryAfterMs: number | undefined;
    };

/** The server carried out the intent (now or earlier: `replayed` says the answer came from its key store). */
export interface Succeeded {
  readonly kind: 'succeeded';
  readonly key: string;
  readonly status: number;
  /** Response headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body parsed as JSON when it is JSON, otherwise the text. */
  readonly body: unknown;
  readonly bodyText: string;
  /** `Idempotent-Replayed: true`: an earlier attempt had already done the work. */
  readonly replayed: boolean;
  readonly attempts: number;
}

/**
 * The server refused the intent with a 4xx that another try of the same request cannot change.
 * `final` is false only for 401 and 403: the stored request may pass with other credentials, so it is kept.
 */
export interface Rejected {
  readonly kind: 'rejected';
  readonly key: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly problem: ProblemDocument;
  readonly bodyText: string;
  readonly replayed: boolean;
  readonly final: boolean;
  readonly attempts: number;
}

/** Why the client stopped trying before a definitive answer. The intent stays stored, under the same key. */
export type GaveUpReason = 'retries-exhausted' | 'deadline' | 'aborted';

/** No definitive answer: the intent is still stored and a later submit sends it again with the same key. */
export interface GaveUp {
  readonly kind: 'gave-up';
  readonly key: string;
  readonly reason: GaveUpReason;
  readonly lastFailure: AttemptFailure | undefined;
  readonly attempts: number;
}

/** What submitting an intent came to. Expected failures are values, never exceptions. */
export type SubmitOutcome = Succeeded | Rejected | GaveUp;
