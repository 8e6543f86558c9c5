import { describeEventStoreContract } from '../testing/index.js';
import { createInMemoryEventStore } from './in-memory-event-store.js';

describeEventStoreContract(
  'in-memory',
  async ({ clock }) => ({ store: createInMemoryEventStore({ now: clock.now }) }),
  { semantics: 'eventstoredb', clock: 'injected' },
);

describeEventStoreContract(
  'in-memory with atomic appendMulti',
  async ({ clock }) => ({
    store: createInMemoryEventStore({ now: clock.now, atomicMultiStreamAppend: true }),
  }),
  { semantics: 'eventstoredb', clock: 'injected', propertyRuns: 4 },
);
