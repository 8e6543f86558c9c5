/** Fills the given array with cryptographically strong random bytes (the WebCrypto `getRandomValues` shape). */
export type RandomBytes = (bytes: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer>;

/** Options for {@link createUuidV7Generator}; both default to the platform (`Date.now`, WebCrypto). */
export interface UuidV7Options {
  /** Milliseconds since the Unix epoch. */
  readonly now?: () => number;
  /** Source of random bytes. */
  readonly randomBytes?: RandomBytes;
}

const COUNTER_MAX = 0xfff;
const COUNTER_SEED_MAX = 0x7ff;
const TIMESTAMP_MAX = 2 ** 48 - 1;

const platformRandomBytes: RandomBytes = (bytes) => globalThis.crypto.getRandomValues(bytes);

const toHex = (bytes: Uint8Array): string => {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/**
 * Creates a UUIDv7 generator (RFC 9562 section 5.7): 48 bits of Unix milliseconds, version 7, a 12-bit counter
 * in `rand_a` (method 1 of section 6.2, seeded at random each millisecond), the variant bits `10`, and 62 random bits.
 * Every UUID from one generator sorts after the previous one, also within one millisecond and when the clock
 * steps back.
 *
 * @param options the clock and the random source.
 * @example
 * const nextUuid = createUuidV7Generator();
 * const key = nextUuid(); // '0192f0c4-7d1e-7a3b-9c4d-5e6f708192a3'
 */
export const createUuidV7Generator = (options: UuidV7Options = {}): (() => string) => {
  const now = options.now ?? Date.now;
  const randomBytes = options.randomBytes ?? platformRandomBytes;
  let lastTimestamp = -1;
  let counter = 0;

  return () => {
    const random = randomBytes(new Uint8Array(10));
    let timestamp = Math.max(0, Math.min(TIMESTAMP_MAX, Math.floor(now())));
    if (timestamp > lastTimestamp) {
      counter = (((random[0] ?? 0) << 8) | (random[1] ?? 0)) & COUNTER_SEED_MAX;
    } else {
      timestamp = lastTimestamp;
      counter += 1;
      if (counter > COUNTER_MAX) {
        timestamp = lastTimestamp + 1;
        counter = 0;
      }
    }
    lastTimestamp = timestamp;

    const bytes = new Uint8Array(16);
    let high = timestamp;
    for (let index = 5; index >= 0; index -= 1) {
      bytes[index] = high % 256;
      high = Math.floor(high / 256);
    }
    bytes[6] = 0x70 | (counter >> 8);
    bytes[7] = counter & 0xff;
    bytes.set(random.subarray(2, 10), 8);
    bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
    return toHex(bytes);
  };
};

let sharedGenerator: (() => string) | undefined;

/**
 * Returns a new UUIDv7 from a process-wide generator over `Date.now` and WebCrypto.
 *
 * @example
 * const key = uuidV7();
 */
export const uuidV7 = (): string => {
  sharedGenerator ??= createUuidV7Generator();
  return sharedGenerator();
};
