import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { findFreePort } from '@once/postgres';
import type { AppDeps } from '../app.js';
import { startGatewaySimProcess } from '../embedded/gateway-sim-process.js';
import type { GatewaySimProcess } from '../embedded/gateway-sim-process.js';
import { useTestApi } from './use-test-api.js';
import type { TestApiContext } from './use-test-api.js';

/** What `useGatewayTestApi` gives a test file: the usual context, the gateway simulator and its fault controls. */
export interface GatewayTestApiContext extends TestApiContext {
  readonly gateway: GatewaySimProcess;
  /** The bearer secret the api sends with its charges and inquiries (the simulator refuses them without it). */
  readonly gatewayApiToken: string;
  /** Arms a fault for the next `times` calls of one kind (`POST /admin/faults`). */
  arm(target: 'charge' | 'inquiry', fault: unknown, times?: number): Promise<void>;
  /** Every charge the gateway made for a payment (its inquiry call). */
  charges(reference: string): Promise<readonly unknown[]>;
}

/**
 * Timings for a file that arms gateway faults: a hung charge times out, a crashed holder's lease ends and the
 * completer picks its key up within a test's patience.
 */
export const shortGatewayTimings = {
  gatewayTimeoutMs: 300,
  leaseMs: 500,
  completerIntervalMs: 200,
} as const satisfies Partial<AppDeps>;

/**
 * The e2e setup of a test file that pays by card: `useTestApi` with the gateway simulator as a process (then `deps`,
 * e.g. `shortGatewayTimings`); all stopped after the file.
 *
 * @example
 * const env = useGatewayTestApi(shortGatewayTimings);
 * await env.arm('charge', { kind: 'error', status: 502 });
 */
export const useGatewayTestApi = (
  deps: Partial<Omit<AppDeps, 'databaseUrl'>> = {},
): GatewayTestApiContext => {
  let gateway: GatewaySimProcess | undefined;
  const started = (): GatewaySimProcess => {
    if (!gateway) throw new Error('the gateway simulator starts in beforeAll: use it inside tests');
    return gateway;
  };
  // The api reaches the simulator as in compose: with the bearer secret its charges need.
  const gatewayApiToken = randomBytes(24).toString('hex');
  beforeAll(async () => {
    gateway = await startGatewaySimProcess({ port: await findFreePort(), apiToken: gatewayApiToken });
  });
  afterAll(async () => {
    await gateway?.stop();
  });
  const context = useTestApi(() => ({ gatewayUrl: started().url, gatewayApiToken, ...deps }));
  return Object.defineProperties(context as GatewayTestApiContext, {
    gateway: { get: started },
    gatewayApiToken: { value: gatewayApiToken },
    arm: {
      value: async (target: 'charge' | 'inquiry', fault: unknown, times = 1) => {
        const armed = await fetch(`${started().url}/admin/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ target, fault, times }),
        });
        expect(armed.status).toBe(201);
      },
    },
    charges: {
      value: async (reference: string) => {
        const answer = await fetch(`${started().url}/charges?reference=${reference}`, {
          headers: { authorization: `Bearer ${gatewayApiToken}` },
        });
        return ((await answer.json()) as { charges: unknown[] }).charges;
      },
    },
  });
};
