export { createIdempotentClient, classifyResponse, sleep } from './client/index.js';
export type {
  AttemptFailure,
  GaveUp,
  GaveUpReason,
  HeaderSource,
  IdempotentClient,
  IdempotentClientOptions,
  PostOptions,
  ProblemDocument,
  Rejected,
  ResponseFacts,
  ResponseVerdict,
  Sleep,
  SubmitOptions,
  SubmitOutcome,
  Succeeded,
} from './client/index.js';
export { formatIdempotencyKeyHeader, isValidIdempotencyKey, toStoredRequest } from './intent/index.js';
export type { Intent, IntentMethod, IntentRequest, StoredRequest } from './intent/index.js';
export { createOnceApi } from './once-api/index.js';
export type {
  OnceApi,
  OnceCommandInput,
  OnceCommandOutcome,
  OnceCommandRoute,
  OnceCommandRoutes,
} from './once-api/index.js';
export { connectBrowserConnectivity, createOfflineQueue } from './queue/index.js';
export type { ConnectivityTarget, OfflineQueue, OfflineQueueOptions, QueueEvent } from './queue/index.js';
export {
  backoffCeiling,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  resolveRetryPolicy,
  retryDelay,
} from './retry/index.js';
export type { RandomSource, RetryPolicy } from './retry/index.js';
export {
  createIndexedDbIntentStorage,
  createLocalStorageIntentStorage,
  createMemoryIntentStorage,
  IntentStorageError,
  isStoredIntent,
  openBrowserIntentStorage,
  openIntentDatabase,
  toStoredIntents,
} from './storage/index.js';
export type {
  BrowserIntentStorage,
  BrowserStorageOptions,
  IntentStorage,
  IntentStorageErrorCode,
} from './storage/index.js';
export { createUuidV7Generator, uuidV7 } from './uuid/index.js';
export type { RandomBytes, UuidV7Options } from './uuid/index.js';
