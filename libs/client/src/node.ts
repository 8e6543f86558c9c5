export { createFileIntentStorage } from './storage/file-intent-storage.js';
