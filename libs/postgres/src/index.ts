export * from './embedded/index.js';
export * from './migrations/index.js';
