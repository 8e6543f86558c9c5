import { describeEventStoreContract, startEventStoreDb } from '../testing/index.js';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.js';

// EVENTSTORE_URL, else an EventStoreDB container, else the wire-level test server: always the real client over a socket.
describeEventStoreContract(
  'eventstoredb',
  async () => {
    const target = await startEventStoreDb();
    const store = createEventStoreDbEventStore(target.connectionString);
    return {
      store,
      dispose: async () => {
        await store.close();
        await target.stop();
      },
    };
  },
  {
    semantics: 'eventstoredb',
    clock: 'real',
    scavengeRemovesEvents: false,
    exactAppendPosition: false,
    appendsInCallOrder: false,
    pagesMayEndInsideAWrite:
      'EventStoreDB gives each event of an append its own $all position and marks no end of a write there',
  },
);
