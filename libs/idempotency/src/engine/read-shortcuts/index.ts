export { createReadShortcuts } from './read-shortcuts.js';
export type { ReadShortcuts, ReadShortcutsOptions, UnreadAttempt } from './read-shortcuts.js';
