import type { RecordedEvent } from '@once/event-store';
import type { TableDefinition } from '../tables/table-definition.js';
import type { ProjectionTransaction, RowRef } from '../tables/unit-of-work.js';

/**
 * A read model, declared: which events it reads, the tables it owns, and how one event changes them.
 * Each projection version gets its own physical tables, so a rebuild never touches the tables being served.
 */
export interface ProjectionDefinition {
  /** Stable name; also the checkpoint and lease name. */
  readonly name: string;
  /**
   * The revision of this definition (its tables and `apply`). A live version built by another revision
   * is rebuilt blue/green.
   */
  readonly version: number;
  /** Only these event types are read (all when omitted). */
  readonly eventTypes?: readonly string[];
  /** Only streams starting with these prefixes are read (all when omitted). */
  readonly streamPrefixes?: readonly string[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly tables: readonly TableDefinition<any>[];
  /** Rows `apply` will read for this event, loaded for the whole batch up front (rows not listed are loaded on demand). */
  readonly reads?: (event: RecordedEvent) => readonly RowRef[];
  /** Applies one event. Must be deterministic: a rebuild replays it over the same log and must produce the same rows. */
  readonly apply: (tx: ProjectionTransaction, event: RecordedEvent) => void | Promise<void>;
}

/** A logger with pino's call shape (Fastify's logger fits). */
export interface ProjectionLogger {
  info(data: object, message?: string): void;
  warn(data: object, message?: string): void;
  error(data: object, message?: string): void;
}

/** A logger that drops everything. */
export const silentLogger: ProjectionLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
