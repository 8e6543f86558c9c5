export { DEFAULT_MAX_DEPTH } from './depth-limit.js';
export type { JsonLimits } from './depth-limit.js';
export type { JsonObject, JsonValue } from './json-value.js';
export { sameJsonValue } from './same-json-value.js';
