export * from './secrets/index.js';
export * from './signatures/index.js';
export * from './inbox/index.js';
export * from './urls/index.js';
