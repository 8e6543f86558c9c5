import { startEventStoreDb } from '@once/testing';
import { describeEventStoreContract } from '../testing/index.js';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.js';

const target = await startEventStoreDb();

describeEventStoreContract(
  'eventstoredb',
  async () => {
    if (!target.available) throw new Error(target.reason);
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
    pagesMayEndInsideAWrite:
      'EventStoreDB global reads do not yet finish an append whose events share a commit position',
    skipReason: target.available ? undefined : target.reason,
  },
);
