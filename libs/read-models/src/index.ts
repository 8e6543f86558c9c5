export { allProjections } from './all-projections.js';
export * from './card-settlements/index.js';
export * from './idempotency-keys/index.js';
export * from './invoices/index.js';
export * from './menus/index.js';
export * from './orders/index.js';
export * from './stock-counts/index.js';
