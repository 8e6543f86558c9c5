import { isIP } from 'node:net';

/** Whether the api listens only on this machine (a loopback address or `localhost`). */
export const isLoopbackHost = (host: string): boolean => {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
};

/**
 * Whether to seed the demo tenant's fixed, public API keys: only when the api listens on loopback, and there with the
 * embedded default or when asked for (`ONCE_DEMO=1`), never when `ONCE_DEMO=0`. A start that does not seed them
 * revokes them (`revokeDemoKeys`), so keys seeded by an earlier start never outlive it.
 *
 * @example
 * shouldSeedDemoKeys({ host: '0.0.0.0', embedded: true, demo: true }); // false
 */
export const shouldSeedDemoKeys = (input: {
  readonly host: string;
  readonly embedded: boolean;
  readonly demo: boolean | undefined;
}): boolean => isLoopbackHost(input.host) && (input.demo ?? input.embedded);
