/**
 * Drops a map's oldest entries (its first keys, in insertion order) once it holds more than `capacity`: a sixteenth
 * of the capacity at once (only the excess below 16), so the map stays within it. A JavaScript `Map` keeps deleted
 * entries as holes in its table until it rebuilds the table, and a walk from the first key passes every one of them:
 * dropping one entry at a time walked thousands of holes on every insert into a full map, where one walk now drops
 * many. `dropped` hears of each key dropped, with its value (to forget what else was kept with it).
 *
 * @example
 * cache.set(stream, events);
 * dropOldestBeyond(cache, 4096, (stream) => behind.delete(stream));
 */
export const dropOldestBeyond = <Key, Value>(
  map: Map<Key, Value>,
  capacity: number,
  dropped?: (key: Key, value: Value) => void,
): void => {
  if (map.size <= capacity) return;
  const keep = capacity - Math.floor(capacity / 16);
  dropOldestWhile(map, () => map.size > keep, dropped);
};

/**
 * Drops a map's oldest entries, in one walk from its first key, for as long as `tooMany` says so: for a map bounded
 * by something other than its size (the events its entries hold). `dropped` hears of each key dropped, with its value.
 */
export const dropOldestWhile = <Key, Value>(
  map: Map<Key, Value>,
  tooMany: () => boolean,
  dropped?: (key: Key, value: Value) => void,
): void => {
  for (const [key, value] of map) {
    if (!tooMany()) return;
    map.delete(key);
    dropped?.(key, value);
  }
};
