export * from './postgres/index.js';
export * from './wait-for/index.js';
export * from './chromium/index.js';
export * from './metrics/index.js';
