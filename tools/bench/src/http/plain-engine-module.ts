/**
 * What the api's engine plugin imports as `@once/idempotency` in the HTTP bench's unkeyed api
 * (`plain-engine-hooks.ts`): the plain engine under the name of the engine it replaces.
 */
export { createPlainEngine as createIdempotencyEngine } from './plain-engine.js';
