import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createUuidV7Generator, uuidV7 } from './index.js';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const layoutOf = (uuid: string) => {
  const hex = uuid.replaceAll('-', '');
  return {
    timestamp: Number.parseInt(hex.slice(0, 12), 16),
    version: Number.parseInt(hex[12] ?? '', 16),
    variant: Number.parseInt(hex[16] ?? '', 16) >> 2,
  };
};

describe('UUIDv7', () => {
  it('has version 7, variant 10 and the clock in its first 48 bits', () => {
    const at = Date.UTC(2026, 10, 29, 23, 59, 1, 234);
    const uuid = createUuidV7Generator({ now: () => at })();
    expect(uuid).toMatch(UUID_SHAPE);
    expect(layoutOf(uuid)).toEqual({ timestamp: at, version: 7, variant: 0b10 });
  });

  it('keeps version and variant whatever the random bytes are', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        fc.nat({ max: 2 ** 48 - 1 }),
        (random, at) => {
          const uuid = createUuidV7Generator({
            now: () => at,
            randomBytes: (bytes) => (bytes.set(random), bytes),
          })();
          expect(layoutOf(uuid)).toEqual({ timestamp: at, version: 7, variant: 0b10 });
        },
      ),
    );
  });

  it('sorts in generation order across milliseconds, within one millisecond and when the clock steps back', () => {
    const times = [
      1_000,
      1_000,
      1_000,
      1_001,
      999,
      999,
      1_005,
      ...Array.from({ length: 5_000 }, () => 1_006),
    ];
    let index = 0;
    const next = createUuidV7Generator({ now: () => times[index++] ?? 1_006 });
    const uuids = times.map(() => next());
    expect([...uuids].sort()).toEqual(uuids);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(layoutOf(uuids[4] ?? '').timestamp).toBe(1_001);
  });

  it('moves to the next millisecond when the 12-bit counter is exhausted, staying ordered', () => {
    const maxSeed = (bytes: Uint8Array<ArrayBuffer>) => bytes.fill(0xff);
    const next = createUuidV7Generator({ now: () => 5_000, randomBytes: maxSeed });
    const uuids = Array.from({ length: 3_000 }, () => next());
    expect([...uuids].sort()).toEqual(uuids);
    expect(layoutOf(uuids.at(-1) ?? '').timestamp).toBe(5_001);
  });

  it('draws from WebCrypto by default', () => {
    const first = uuidV7();
    const second = uuidV7();
    expect(first).not.toBe(second);
    expect(layoutOf(first).version).toBe(7);
    expect(second > first).toBe(true);
  });
});
