export { openEventStore } from './open-event-store.js';
export type { OpenEventStoreOptions } from './open-event-store.js';
export { startRetentionScavenger } from './retention-scavenger.js';
export type { RetentionScavengerDeps, RetentionScavengerSettings } from './retention-scavenger.js';
export { startBackgroundWork } from './start-background-work.js';
export type { BackgroundWork, BackgroundWorkDeps, BackgroundWorkSettings } from './start-background-work.js';
