export * from './client/index.js';
export * from './intent/index.js';
export * from './once-api/index.js';
export * from './queue/index.js';
export * from './retry/index.js';
export * from './storage/index.js';
export * from './uuid/index.js';
