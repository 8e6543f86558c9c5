/** Where the EventStoreDB tests can reach a server, or why they skip. */
export type EventStoreTarget =
  | { readonly available: true; readonly connectionString: string; stop(): Promise<void> }
  | { readonly available: false; readonly reason: string };

const image = 'eventstore/eventstore:24.10';

/**
 * Finds an EventStoreDB for the contract tests: `EVENTSTORE_URL` when set, otherwise a testcontainers
 * container when a container runtime answers; otherwise says why the tests skip.
 *
 * @example
 * const target = await startEventStoreDb();
 * describe.skipIf(!target.available)('EventStoreDB', () => { … });
 */
export const startEventStoreDb = async (): Promise<EventStoreTarget> => {
  const url = process.env['EVENTSTORE_URL'];
  if (url) return { available: true, connectionString: url, stop: async () => undefined };

  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    return {
      available: false,
      reason: 'no container runtime: skipping EventStoreDB tests (set EVENTSTORE_URL to use a server)',
    };
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
    available: true,
    connectionString: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
};
