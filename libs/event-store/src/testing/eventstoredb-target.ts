import { startWireEventStoreDb } from './eventstoredb-wire/index.js';

/** Where the EventStoreDB tests reach a server, and which kind it is. */
export interface EventStoreTarget {
  readonly connectionString: string;
  /** `url`: EVENTSTORE_URL; `container`: an EventStoreDB container; `wire`: the in-memory wire-level test server. */
  readonly kind: 'url' | 'container' | 'wire';
  stop(): Promise<void>;
}

const image = 'eventstore/eventstore:24.10';

/**
 * Finds an EventStoreDB for the tests that run through `@eventstore/db-client`: `EVENTSTORE_URL` when set, otherwise
 * a testcontainers container when a container runtime answers, otherwise the wire-level test server in this
 * process (see `eventstoredb-wire/README.md`). The same suites run unchanged against any of the three.
 *
 * @example
 * const target = await startEventStoreDb();
 * const store = createEventStoreDbEventStore(target.connectionString);
 * // …
 * await store.close();
 * await target.stop();
 */
export const startEventStoreDb = async (): Promise<EventStoreTarget> => {
  const url = process.env['EVENTSTORE_URL'];
  if (url) return { kind: 'url', connectionString: url, stop: async () => undefined };

  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    const server = await startWireEventStoreDb();
    return { kind: 'wire', connectionString: server.connectionString, stop: server.stop };
  }
  const container = await new GenericContainer(image)
    .withEnvironment({
      EVENTSTORE_INSECURE: 'true',
      EVENTSTORE_RUN_PROJECTIONS: 'None',
      EVENTSTORE_MEM_DB: 'true',
    })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .start();
  return {
    kind: 'container',
    connectionString: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
};
