export { CanonicalJsonError } from './canonical-json-error.js';
export type { CanonicalJsonErrorCode, CanonicalJsonErrorData } from './canonical-json-error.js';
