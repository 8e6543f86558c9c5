import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** An internal address for `/metrics`, apart from the api's public one. */
export interface MetricsListener {
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
}

/** What the metrics listener answers: the registry, and a liveness probe that answers while the process does. */
export const metricsListenerPaths = { metrics: '/metrics', live: '/health/live' } as const;

/**
 * Serves the registry at `GET /metrics` on its own listener, and `GET /health/live` (200 while the process answers,
 * for a process with no other listener, as the projector), everything else 404; so scraping needs no route on the
 * public port and the metrics are not exposed with the api.
 *
 * @example
 * const server = await serveMetrics(registry, { port: 9464 });
 * await server.close();
 */
export const serveMetrics = async (
  registry: Registry,
  listener: MetricsListener,
): Promise<{ readonly url: string; close(): Promise<void> }> => {
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === metricsListenerPaths.live) {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (request.method !== 'GET' || request.url !== metricsListenerPaths.metrics) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  const host = listener.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listener.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}${metricsListenerPaths.metrics}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
