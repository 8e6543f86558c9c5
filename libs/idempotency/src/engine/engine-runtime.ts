import type { EventStore } from '@once/event-store';
import type { CompletedKeyMemory } from './completed-keys.js';
import type { EngineSettings } from './engine-settings.js';
import type { KeyLogReads } from './key-log-reads.js';
import type { ReadShortcuts } from './read-shortcuts/index.js';

/** What both protocols run on: the settings, the store, its reads, the read shortcuts, the completed keys. */
export interface EngineRuntime {
  readonly settings: EngineSettings;
  readonly store: EventStore;
  readonly reads: KeyLogReads;
  /** The optional read shortcuts (see `ReadShortcuts`); without them every request reads. */
  readonly shortcuts: ReadShortcuts | undefined;
  readonly completedKeys: CompletedKeyMemory;
}
