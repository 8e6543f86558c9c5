import type { EventStore, EventToAppend } from '../port/index.js';
import type { TestClock } from './contract-fixtures.js';

/** An append whose transaction is still open; it becomes visible only on `commit`. */
export interface HeldAppend {
  commit(): Promise<void>;
}

/** What a contract run needs from an adapter. */
export interface ContractSubject {
  readonly store: EventStore;
  /**
   * Appends in a transaction that stays open until `commit` (stores with transactions). The contract uses it to
   * make events commit late, after events with higher sequence numbers have committed.
   */
  readonly beginHeldAppend?: (stream: string, events: readonly EventToAppend[]) => Promise<HeldAppend>;
  /** Releases what the factory opened (closes the store when omitted). */
  readonly dispose?: () => Promise<void>;
}

/** Builds the adapter under test. The clock is the contract's: adapters that can take a clock should use it. */
export type ContractFactory = (context: { readonly clock: TestClock }) => Promise<ContractSubject>;

/** How the adapter deliberately behaves; the contract asserts the matching rules. */
export interface ContractOptions {
  /**
   * `eventstoredb`: re-appending the same ids at the current head writes them again (in-memory, EventStoreDB).
   * `strict`: re-appending the same ids is exactly-once under every expectation (PostgreSQL).
   */
  readonly semantics: 'eventstoredb' | 'strict';
  /** Whether the adapter reads time from the contract's clock; otherwise age-based retention waits in real time. */
  readonly clock?: 'injected' | 'real';
  /** Whether `scavenge` removes events itself (false where the server scavenges on its own, as EventStoreDB). */
  readonly scavengeRemovesEvents?: boolean;
  /**
   * Whether an append reports exactly the global position of its last event, and an idempotent re-append exactly
   * the original's (default true). Unverified for EventStoreDB, which answers with commit/prepare positions of the
   * write and builds a re-append's from the original's log position.
   */
  readonly exactAppendPosition?: boolean;
  /**
   * When set, the adapter's global pages may end inside a write (EventStoreDB for now) and this says why; the test
   * that a checkpoint never lands inside a write is then skipped with this reason.
   */
  readonly pagesMayEndInsideAWrite?: string;
  /**
   * Whether appends started together are decided in the order they were called (default true: in-memory decides
   * each within its call, PostgreSQL sends the appends of one turn of the event loop as one statement in call order).
   * False where each append is a request of its own that a server may take in another order (EventStoreDB): the
   * contract then accepts the outcomes of either order for two appends to one stream.
   */
  readonly appendsInCallOrder?: boolean;
  /** When set, the whole suite is skipped and this says why. */
  readonly skipReason?: string | undefined;
  /** Runs of the late-commit property test. Default 12. */
  readonly propertyRuns?: number;
}
