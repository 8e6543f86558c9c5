import { describe, expect, it } from 'vitest';
import { RowCache } from './unit-of-work.js';

describe('RowCache', () => {
  it('knows absent rows only for tables that started empty, and forgets that once it evicts', () => {
    const cache = new RowCache(10);
    expect(cache.lookup('t_v1', 'a')).toBeUndefined();
    cache.markEmpty('t_v1');
    expect(cache.lookup('t_v1', 'a')).toBeNull();
    cache.remember(
      't_v1',
      new Map([
        ['a', { id: 'a' }],
        ['b', null],
      ]),
    );
    expect(cache.lookup('t_v1', 'a')).toEqual({ id: 'a' });
    expect(cache.lookup('t_v1', 'b')).toBeNull();

    cache.remember(
      't_v1',
      new Map(Array.from({ length: 12 }, (_, index) => [`k${index}`, { id: `k${index}` }])),
    );
    expect(cache.lookup('t_v1', 'a')).toBeUndefined();
    expect(cache.lookup('t_v1', 'never-seen')).toBeUndefined();
    expect(cache.lookup('t_v1', 'k11')).toEqual({ id: 'k11' });
  });
});
