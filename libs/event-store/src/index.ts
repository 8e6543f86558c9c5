export * from './port/index.js';
