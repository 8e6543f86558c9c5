export { createUuidV7Generator, uuidV7 } from './uuid-v7.js';
export type { RandomBytes, UuidV7Options } from './uuid-v7.js';
