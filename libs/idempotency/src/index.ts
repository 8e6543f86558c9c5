export * from './header/index.js';
export * from './ids/index.js';
export * from './commands/index.js';
export * from './engine/index.js';
export * from './http/index.js';
export * from './problems/index.js';
