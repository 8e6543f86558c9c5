import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';

/** A TCP balancer on the loopback interface. */
export interface Balancer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Spreads incoming connections round-robin over the backends' ports; a backend that refuses the connection (killed,
 * restarting) is skipped for the next one, as a load balancer's health check would. Bytes are piped both ways; when
 * either side closes or fails, so does the other.
 *
 * @example
 * const balancer = await startBalancer(0, [4001, 4002]);
 */
export const startBalancer = async (port: number, backendPorts: readonly number[]): Promise<Balancer> => {
  let next = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const dial = (client: Socket, tries: number): void => {
    const backendPort = backendPorts[next % backendPorts.length] as number;
    next += 1;
    const upstream = connect({ host: '127.0.0.1', port: backendPort });
    track(upstream);
    upstream.once('error', () => {
      if (!upstream.readyState.startsWith('open') && tries < backendPorts.length * 2) {
        upstream.destroy();
        dial(client, tries + 1);
        return;
      }
      client.destroy();
    });
    upstream.once('connect', () => {
      upstream.removeAllListeners('error');
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  };
  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on('error', () => client.destroy());
    dial(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return {
    port: boundPort,
    url: `http://127.0.0.1:${String(boundPort)}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
