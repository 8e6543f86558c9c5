export { canonicalize } from './canonicalize/index.js';
export { CanonicalJsonError } from './errors/index.js';
export type { CanonicalJsonErrorCode, CanonicalJsonErrorData } from './errors/index.js';
export { fingerprint } from './fingerprint/index.js';
export type { FingerprintedRequest } from './fingerprint/index.js';
export { DEFAULT_MAX_DEPTH } from './json/index.js';
export type { JsonLimits, JsonObject, JsonValue } from './json/index.js';
export { parseJson } from './parse/index.js';
export type { ParseJsonResult } from './parse/index.js';
