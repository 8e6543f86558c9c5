import { buildGatewaySim } from './gateway-sim.js';
import type { GatewaySimDeps } from './gateway-sim.js';
import type { FaultPlan } from './faults/index.js';

/** A gateway simulator listening on a port. */
export interface RunningGatewaySim {
  readonly url: string;
  readonly faults: FaultPlan;
  close(): Promise<void>;
}

/**
 * Builds the simulator and listens (port 0 picks a free one): the api's embedded default and tests run it in-process.
 *
 * @example
 * const gateway = await startGatewaySim({ host: '127.0.0.1', port: 0 });
 * await gateway.close();
 */
export const startGatewaySim = async (
  options: GatewaySimDeps & { readonly host?: string; readonly port?: number } = {},
): Promise<RunningGatewaySim> => {
  const { app, faults } = buildGatewaySim(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { url: `http://${host}:${String(port)}`, faults, close: () => app.close() };
};
