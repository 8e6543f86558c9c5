export { assertValidRetention, isExpired } from './stream-retention.js';
