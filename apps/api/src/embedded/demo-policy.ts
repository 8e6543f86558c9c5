import { isIP } from 'node:net';

/** Whether the api listens only on this machine (a loopback address or `localhost`). */
export const isLoopbackHost = (host: string): boolean => {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
};

/**
 * Whether to seed the demo tenant's fixed, public API keys: with the embedded default on loopback, or when asked
 * for explicitly (`ONCE_DEMO=1`); never on a public interface unless asked, and never when `ONCE_DEMO=0`.
 *
 * @example
 * shouldSeedDemoKeys({ host: '0.0.0.0', embedded: true, demo: undefined }); // false
 */
export const shouldSeedDemoKeys = (input: {
  readonly host: string;
  readonly embedded: boolean;
  readonly demo: boolean | undefined;
}): boolean => input.demo ?? (input.embedded && isLoopbackHost(input.host));
