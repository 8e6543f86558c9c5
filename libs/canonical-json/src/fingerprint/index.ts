export { fingerprint, fingerprintOfText, fingerprintText } from './fingerprint.js';
export type { FingerprintedRequest } from './fingerprint.js';
