import type { GlobalPosition, StreamRevision } from '../port/index.js';

/** Where a recently written event id landed. */
export interface RecentEventId {
  readonly stream: string;
  readonly revision: StreamRevision;
  readonly position: GlobalPosition;
}

/**
 * EventStoreDB's committed-events cache: the last `capacity` event ids written to the node, evicted first in,
 * first out (not LRU). Writing an id again replaces where it points without moving it in the queue.
 */
export class RecentEventIds {
  private readonly entries = new Map<string, RecentEventId>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0)
      throw new RangeError('recent event id capacity must be >= 0');
  }

  get(eventId: string): RecentEventId | undefined {
    return this.entries.get(eventId.toLowerCase());
  }

  remember(eventId: string, entry: RecentEventId): void {
    if (this.capacity === 0) return;
    this.entries.set(eventId.toLowerCase(), entry);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}
