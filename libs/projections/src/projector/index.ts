export { startProjector } from './start-projector.js';
export type { Projector, ProjectorOptions } from './start-projector.js';
export { completeAbandonedKeysOnce, startCompleter } from './abandoned-key-completer.js';
export type { Completer, CompleterOptions } from './abandoned-key-completer.js';
