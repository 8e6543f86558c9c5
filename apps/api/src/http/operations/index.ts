export { corsAllowedHeaders, corsAllowedMethods, corsExposedHeaders, corsPlugin } from './cors.js';
export { deferredChildLogger } from './deferred-child-logger.js';
export { documentRateLimits } from './openapi-rate-limits.js';
export type { OperationsDeps } from './operations-deps.js';
export { rateLimitHeader, rateLimitPolicy, rateLimitPolicyHeader, rateLimitsPlugin } from './rate-limits.js';
export type { RateLimit, RateLimitPolicyName, RateLimitSettings } from './rate-limits.js';
export { redactedHeaders, withRedaction } from './log-redaction.js';
export { operationsFromEnv, operationsSettings } from './operations-env.js';
