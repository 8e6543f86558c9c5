import { createPostgresEventStore } from '@once/event-store/postgres';
import { createTestDatabase } from '@once/testing';
import { describeEngineSuite } from '../testing/engine-suite.js';

const onPostgres = async () => {
  const db = await createTestDatabase();
  const store = createPostgresEventStore(db.pool);
  return {
    store,
    release: async () => {
      await store.close();
      await db.release();
    },
  };
};

describeEngineSuite('engine on PostgreSQL (atomic: key and events in one commit)', {
  createStore: onPostgres,
  protocol: 'auto',
  expectedProtocol: 'atomic',
});

describeEngineSuite('engine on PostgreSQL, forced phased (the protocol EventStoreDB needs)', {
  createStore: onPostgres,
  protocol: 'phased',
  expectedProtocol: 'phased',
});
