export { fingerprint } from './fingerprint.js';
export type { FingerprintedRequest } from './fingerprint.js';
