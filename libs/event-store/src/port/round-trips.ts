import type { EventStore } from './event-store.js';

/** A port operation that may cost a request to the store's server. */
export type RoundTripOperation = Exclude<keyof EventStore, 'capabilities' | 'close'>;

/**
 * Told once per request an adapter sends its server (a statement on PostgreSQL, a gRPC call on EventStoreDB), with
 * the port operation it serves: how a caller counts what a command costs in round trips.
 */
export type RoundTripListener = (operation: RoundTripOperation) => void;
