/** How many entries a map keeps apart from the rest before it copies them in. */
const RECENT_MAX = 32;

/**
 * An immutable map whose `with` copies at most a few dozen entries instead of all of them. A decider's state that keeps
 * a map of what its stream recorded (an invoice's payments) gains an entry with each event; copying the whole map each
 * time makes an event cost as much as the stream is long, and leaves as much garbage. This map keeps its entries in
 * two parts: the older ones, shared as they are by every map made from it, and up to `RECENT_MAX` recent ones, copied
 * by `with`; when the recent ones are full they are copied in with the older ones, once in `RECENT_MAX` changes.
 * Nothing is ever changed in place, so any map may be made from any other. Iterates in the order keys were first set,
 * a key set again keeping its place, as a `Map` does.
 */
export class ChunkedMap<K, V> implements ReadonlyMap<K, V> {
  private constructor(
    private readonly older: ReadonlyMap<K, V>,
    private readonly recent: ReadonlyMap<K, V>,
    readonly size: number,
  ) {}

  /** A map with no entries. */
  static empty<K, V>(): ChunkedMap<K, V> {
    return new ChunkedMap<K, V>(new Map(), new Map(), 0);
  }

  /** This map with `key` set to `value`. */
  with(key: K, value: V): ChunkedMap<K, V> {
    const size = this.has(key) ? this.size : this.size + 1;
    if (this.recent.size < RECENT_MAX || this.recent.has(key)) {
      return new ChunkedMap(this.older, new Map(this.recent).set(key, value), size);
    }
    // The older entries copied whole, the recent ones set over them: each key keeps its place, as in `entries`.
    const merged = new Map(this.older);
    for (const [recentKey, recentValue] of this.recent) merged.set(recentKey, recentValue);
    return new ChunkedMap(merged.set(key, value), new Map(), size);
  }

  get(key: K): V | undefined {
    return this.recent.has(key) ? this.recent.get(key) : this.older.get(key);
  }

  has(key: K): boolean {
    return this.recent.has(key) || this.older.has(key);
  }

  *entries(): MapIterator<[K, V]> {
    for (const [key, value] of this.older) {
      yield [key, this.recent.has(key) ? (this.recent.get(key) as V) : value];
    }
    for (const entry of this.recent) if (!this.older.has(entry[0])) yield entry;
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}
