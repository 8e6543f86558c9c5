import { createInMemoryEventStore } from '@once/event-store';
import { describeEngineSuite } from '../testing/engine-suite.js';

const inMemory = (atomicMultiStreamAppend: boolean) => async (clock: { now(): number }) => ({
  store: createInMemoryEventStore({ atomicMultiStreamAppend, now: () => new Date(clock.now()) }),
  release: async () => undefined,
});

describeEngineSuite('engine on the in-memory store with EventStoreDB rules (phased)', {
  createStore: inMemory(false),
  protocol: 'auto',
  expectedProtocol: 'phased',
});

describeEngineSuite('engine on the in-memory store with atomic appends (atomic)', {
  createStore: inMemory(true),
  protocol: 'auto',
  expectedProtocol: 'atomic',
});

describeEngineSuite('engine on the in-memory store with atomic appends, forced phased', {
  createStore: inMemory(true),
  protocol: 'phased',
  expectedProtocol: 'phased',
});
