export * from './tables/index.js';
export * from './runner/index.js';
export * from './schema/index.js';
export * from './versions/index.js';
export * from './consistency/index.js';
export * from './rebuild/index.js';
export * from './projector/index.js';
