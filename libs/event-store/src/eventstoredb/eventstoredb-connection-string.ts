import { EventStoreDBClient } from '@eventstore/db-client';

/**
 * Why `@eventstore/db-client` 6.x would refuse a connection string (its own parser's message), or undefined when it
 * takes it. The client parses `esdb://` and `esdb+discover://` only (not `kurrentdb://`, which later clients read),
 * with hosts, ports and `?key=value` settings; nothing is contacted.
 *
 * @example
 * eventStoreDbConnectionStringProblem('esdb://localhost:2113?tls=false'); // undefined
 * eventStoreDbConnectionStringProblem('kurrentdb://localhost:2113'); // 'Unexpected "kurrentdb://" at position 0, …'
 */
export const eventStoreDbConnectionStringProblem = (connectionString: string): string | undefined => {
  try {
    // Building a client parses the string; the connection is opened only by the first call, never made here.
    void EventStoreDBClient.connectionString(connectionString).dispose();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
};
