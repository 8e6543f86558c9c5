export { createIdempotentClient } from './idempotent-client.js';
export type {
  HeaderSource,
  IdempotentClient,
  IdempotentClientOptions,
  PostOptions,
  SubmitOptions,
} from './idempotent-client.js';
export type {
  AttemptFailure,
  GaveUp,
  GaveUpReason,
  ProblemDocument,
  Rejected,
  SubmitOutcome,
  Succeeded,
} from './outcome.js';
export { classifyResponse } from './classify-response.js';
export type { ResponseFacts, ResponseVerdict } from './classify-response.js';
export { sleep } from './sleep.js';
export type { Sleep } from './sleep.js';
