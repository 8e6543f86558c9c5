export * from './decider/index.js';
export * from './errors/index.js';
export * from './values/index.js';
export * from './streams/index.js';
