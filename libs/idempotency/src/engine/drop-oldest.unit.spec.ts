import { describe, expect, it } from 'vitest';
import { dropOldestBeyond } from './drop-oldest.js';

const filled = (count: number): Map<number, string> =>
  new Map(Array.from({ length: count }, (_, index) => [index, `entry ${String(index)}`] as const));

describe('dropOldestBeyond', () => {
  it('leaves a map at or under its capacity alone', () => {
    const map = filled(32);
    const dropped: number[] = [];
    dropOldestBeyond(map, 32, (key) => dropped.push(key));
    expect(map.size).toBe(32);
    expect(dropped).toEqual([]);
  });

  it('drops the oldest sixteenth of the capacity at once, in insertion order', () => {
    const map = filled(32);
    map.delete(1);
    map.set(1, 'entry 1, again');
    map.set(32, 'entry 32');
    map.set(33, 'entry 33');
    const dropped: number[] = [];
    dropOldestBeyond(map, 32, (key) => dropped.push(key));
    expect(dropped).toEqual([0, 2, 3, 4]);
    expect(map.size).toBe(30);
    expect(map.get(1)).toBe('entry 1, again');
  });

  it('drops only the excess of a capacity under 16', () => {
    const map = filled(3);
    dropOldestBeyond(map, 2);
    expect([...map.keys()]).toEqual([1, 2]);
  });
});
