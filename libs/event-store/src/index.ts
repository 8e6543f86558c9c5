export type {
  AppendOptions,
  AppendResult,
  EventStore,
  EventStoreCapabilities,
  EventToAppend,
  ExpectedRevision,
  GlobalFilter,
  GlobalPosition,
  ReadAllBatch,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamRetention,
  StreamRevision,
  StreamTail,
  StreamTailRead,
  SubscribeOptions,
  Subscription,
  RoundTripListener,
  RoundTripOperation,
} from './port/index.js';
export {
  WrongExpectedRevisionError,
  UnsupportedOperationError,
  comparePositions,
  formatPosition,
  parsePosition,
} from './port/index.js';
export { createInMemoryEventStore } from './in-memory/index.js';
export type { InMemoryEventStoreOptions } from './in-memory/index.js';
export { createPostgresEventStore, migrateEventStore, eventStoreMigrations } from './postgres/index.js';
export type { PostgresEventStoreOptions } from './postgres/index.js';
export { createEventStoreDbEventStore, eventStoreDbConnectionStringProblem } from './eventstoredb/index.js';
export type { EventStoreDbEventStoreOptions } from './eventstoredb/index.js';
export { removeExpiredStreams, startStreamScavenger } from './postgres/index.js';
export type { ScavengerRound, StreamScavenger, StreamScavengerOptions } from './postgres/index.js';
