export { DEFAULT_MAX_DEPTH, resolveMaxDepth } from './depth-limit.js';
export type { JsonLimits } from './depth-limit.js';
export type { JsonObject, JsonValue } from './json-value.js';
export { appendPointer } from './json-pointer.js';
export { hasLoneSurrogate } from './unicode.js';
