export * from './canonicalize/index.js';
export * from './errors/index.js';
export * from './fingerprint/index.js';
export * from './json/index.js';
export * from './parse/index.js';
