export { isKeyLogEvent, keyLogEventTypes } from './key-log.events.js';
export type {
  IdempotencyEffectPlannedData,
  IdempotencyKeyClaimedData,
  IdempotencyKeyCompletedData,
  IdempotencyKeyReleasedData,
  IdempotencyLeaseTakenData,
  IdempotencyRecoveryPointReachedData,
  KeyLogEvent,
  KeyLogEventType,
  PlannedEvent,
  PlannedWrite,
  RequestFingerprint,
  StoredResponse,
} from './key-log.events.js';
export { evolveKeyState, foldKeyLog, initialKeyState, KeyLogCorruptedError } from './key-log.state.js';
export type { KeyInFlight, KeyState } from './key-log.state.js';
export { keyStreamName, KEY_STREAM_PREFIX, scopedKey } from './key-stream-name.js';
export { decideArrival, decideKeyLog, retryAfterSeconds } from './key-log.decider.js';
export type { ArrivalDecision, KeyLogDecision, KeyLogInput } from './key-log.decider.js';
