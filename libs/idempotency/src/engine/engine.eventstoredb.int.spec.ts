import { createEventStoreDbEventStore } from '@once/event-store/eventstoredb';
import { startEventStoreDb } from '@once/event-store/testing';
import { describeEngineSuite } from '../testing/engine-suite.js';

// EVENTSTORE_URL, else an EventStoreDB container, else the wire-level test server: the real client over a socket.
const onEventStoreDb = async () => {
  const target = await startEventStoreDb();
  const store = createEventStoreDbEventStore(target.connectionString);
  return {
    store,
    release: async () => {
      await store.close();
      await target.stop();
    },
  };
};

describeEngineSuite('engine on EventStoreDB (phased: no multi-stream append there)', {
  createStore: onEventStoreDb,
  protocol: 'auto',
  expectedProtocol: 'phased',
});
