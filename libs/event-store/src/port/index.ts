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
  ScavengeReport,
  StreamAppend,
  StreamRetention,
  StreamRevision,
  StreamTail,
  StreamTailRead,
  SubscribeOptions,
  Subscription,
} from './event-store.js';
export { WrongExpectedRevisionError, UnsupportedOperationError } from './errors.js';
export { comparePositions, formatPosition, parsePosition } from './position.js';
