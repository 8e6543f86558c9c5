import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkedMap } from './chunked-map.js';

const contentOf = (map: ReadonlyMap<string, number>) => ({
  entries: [...map],
  size: map.size,
  keys: [...map.keys()],
  values: [...map.values()],
});

describe('ChunkedMap', () => {
  it('reads like a Map: order of first setting, a key set again kept in its place', () => {
    const map = ChunkedMap.empty<string, number>().with('a', 1).with('b', 2).with('a', 3);
    expect(contentOf(map)).toEqual(
      contentOf(
        new Map([
          ['a', 1],
          ['b', 2],
        ]).set('a', 3),
      ),
    );
    expect(map.get('a')).toBe(3);
    expect(map.has('b')).toBe(true);
    expect(map.has('c')).toBe(false);
    const seen: [string, number][] = [];
    map.forEach((value, key, itself) => {
      seen.push([key, value]);
      expect(itself).toBe(map);
    });
    expect(seen).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
  });

  it('matches a Map copied on every change, for any sequence of changes to any earlier map', () => {
    // Enough keys and changes that the recent entries fill and are copied in, more than once.
    const change = fc.record({ from: fc.nat(), key: fc.integer({ min: 0, max: 80 }), value: fc.integer() });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 200 }), (changes) => {
        const maps: ChunkedMap<string, number>[] = [ChunkedMap.empty()];
        const copies: Map<string, number>[] = [new Map()];
        for (const { from, key, value } of changes) {
          // Mostly the newest map, as a fold does; sometimes an earlier one.
          const index = from % 4 === 0 ? from % maps.length : maps.length - 1;
          maps.push((maps[index] as ChunkedMap<string, number>).with(`k${key}`, value));
          copies.push(new Map(copies[index]).set(`k${key}`, value));
        }
        maps.forEach((map, index) => {
          expect(contentOf(map)).toEqual(contentOf(copies[index] as Map<string, number>));
        });
      }),
      { numRuns: 200 },
    );
  });
});
