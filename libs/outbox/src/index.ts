export * from './delivery-state/index.js';
export * from './relay/index.js';
export * from './schema/index.js';
