export { migrateProjectionsSchema } from './projections-schema.js';
