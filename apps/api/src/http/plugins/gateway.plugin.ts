import fp from 'fastify-plugin';
import { createGatewayClient } from '@once/cafe';
import type { GatewayClient } from '@once/cafe';

declare module 'fastify' {
  interface FastifyInstance {
    /** The card gateway. */
    gateway: GatewayClient;
  }
}

/** The card gateway client (apps/gateway-sim, or a gateway with the same contract). */
export const gatewayPlugin = fp<{ baseUrl: string; timeoutMs?: number; apiToken?: string | undefined }>(
  async (app, { baseUrl, timeoutMs, apiToken }) => {
    app.decorate(
      'gateway',
      createGatewayClient({ baseUrl, apiToken, ...(timeoutMs === undefined ? {} : { timeoutMs }) }),
    );
  },
  { name: 'once-gateway', fastify: '5.x' },
);
