import { describe, expect, it } from 'vitest';
import { CompletedKeys } from './completed-keys.js';
import type { CompletedKey } from './completed-keys.js';

const completed = (body: string): CompletedKey => ({
  fingerprint: { method: 'POST', route: '/counters/:id/increments', requestHash: 'ab' },
  response: { status: 201, headers: {}, body },
  position: undefined,
});

describe('CompletedKeys', () => {
  it('answers a remembered key until the earlier of its time to live and its expiry', () => {
    const keys = new CompletedKeys(10, 1_000);
    keys.remember('idem-a', completed('a'), 0, 10_000);
    keys.remember('idem-b', completed('b'), 0, 500);
    expect(keys.get('idem-a', 999)?.response.body).toBe('a');
    expect(keys.get('idem-a', 1_000)).toBeUndefined();
    expect(keys.get('idem-b', 499)?.response.body).toBe('b');
    expect(keys.get('idem-b', 500)).toBeUndefined();
  });

  it('drops the key remembered longest beyond its capacity', () => {
    const keys = new CompletedKeys(2, 1_000);
    keys.remember('idem-a', completed('a'), 0, 10_000);
    keys.remember('idem-b', completed('b'), 0, 10_000);
    keys.remember('idem-a', completed('a'), 1, 10_000);
    keys.remember('idem-c', completed('c'), 1, 10_000);
    expect(keys.get('idem-b', 2)).toBeUndefined();
    expect(keys.get('idem-a', 2)?.response.body).toBe('a');
    expect(keys.get('idem-c', 2)?.response.body).toBe('c');
  });

  it('remembers nothing with a capacity of 0, or a key already at its expiry', () => {
    const none = new CompletedKeys(0, 1_000);
    none.remember('idem-a', completed('a'), 0, 10_000);
    expect(none.get('idem-a', 1)).toBeUndefined();
    const keys = new CompletedKeys(10, 1_000);
    keys.remember('idem-a', completed('a'), 100, 100);
    expect(keys.get('idem-a', 100)).toBeUndefined();
  });
});
