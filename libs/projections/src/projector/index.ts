export { startProjector } from './start-projector.js';
export type { Projector, ProjectorOptions } from './start-projector.js';
export { completeAbandonedKeysOnce } from './abandoned-key-completer.js';
export type { CompleterOptions } from './abandoned-key-completer.js';
