export { canonicalize } from './canonicalize.js';
