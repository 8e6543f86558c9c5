/** What a workload intent asks for; the checker knows each kind's effect. */
export type IntentKind =
  | 'issue-invoice'
  | 'pay-cash'
  | 'pay-card'
  | 'set-menu-item'
  | 'place-order'
  | 'withdraw-menu-item'
  | 'serve-order'
  | 'complete-order'
  | 'open-stock-count'
  | 'record-count-line'
  | 'post-stock-count';

/** The facts of an intent's request the checker matches effects by (each unique within the run). */
export interface IntentTarget {
  readonly invoiceId?: string;
  readonly orderId?: string;
  readonly stockCountId?: string;
  /** Unique per invoice for payments: attributes a payment event to its intent. */
  readonly amount?: number;
  readonly customerRef?: string;
  /** Unique per run for orders and their menu items, unique per stock count for count lines. */
  readonly sku?: string;
}

/** How an attempt ended: an HTTP status, or no answer at all. */
export type AttemptStatus = number | 'network' | 'timeout';

/** One HTTP attempt of one intent (one line of the history). */
export interface AttemptRecord {
  readonly type: 'attempt';
  readonly intent: string;
  readonly key: string;
  /** 1-based, per key, across the concurrent copies of a duplicated intent. */
  readonly attempt: number;
  /** Milliseconds since the epoch. */
  readonly sentAt: number;
  readonly receivedAt: number;
  readonly status: AttemptStatus;
  /** SHA-256 (hex) of the response body, when one was read whole. */
  readonly bodyHash?: string;
  readonly replayed?: boolean;
}

/** How an intent ended for its client: the final answer it kept. */
export interface IntentRecord {
  readonly type: 'intent';
  readonly intent: string;
  readonly kind: IntentKind;
  readonly key: string;
  /** How many copies were sent at once (10 for a deliberate duplicate). */
  readonly copies: number;
  readonly target: IntentTarget;
  readonly outcome: 'succeeded' | 'rejected' | 'gave-up';
  readonly status?: number;
  /** The parsed body of a 2xx answer. */
  readonly body?: unknown;
  readonly startedAt: number;
  readonly endedAt: number;
}

/** A fault the run injected (process kills, restarts, gateway faults), for the report's timeline. */
export interface FaultRecord {
  readonly type: 'fault';
  readonly at: number;
  readonly fault: string;
  readonly target: string;
  /** A cluster's leader after its leader was killed (the same node when it recovered in place). */
  readonly leaderAfter?: string;
  /** How long after the kill a leader served through HAProxy again (ms). */
  readonly servingAfterMs?: number;
}

export type HistoryRecord = AttemptRecord | IntentRecord | FaultRecord;
