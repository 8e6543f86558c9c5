import { Agent, createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Random } from '../random/index.js';

/** What the proxy does to one request. */
export type ProxyFault = 'reset-before' | 'drop-after' | 'delay';

/** How often each fault strikes (0 to 1 each, drawn per request), and how long a delay holds the answer. */
export interface ProxyFaultRates {
  readonly resetBefore: number;
  readonly dropAfter: number;
  readonly delay: number;
  /** Longer than the client's attempt timeout, so the client has given up by the time the answer leaves. */
  readonly delayMs: number;
}

export interface FaultProxy {
  readonly url: string;
  /** Faults injected so far, by kind. */
  counts(): Readonly<Record<ProxyFault, number>>;
  /** Stops injecting (for the final drain) or starts again. */
  setEnabled(enabled: boolean): void;
  close(): Promise<void>;
}

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']);

const readAll = async (stream: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * An HTTP proxy in front of the api that plays the network's worst habits: it resets the connection before the
 * request reaches the server, drops the response after the server handled the request, or holds the response
 * beyond the client's timeout. Everything else passes through untouched.
 *
 * @example
 * const proxy = await startFaultProxy(system.url, { resetBefore: 0.02, dropAfter: 0.05, delay: 0.02, delayMs: 6_000 }, random);
 */
export const startFaultProxy = async (
  upstream: string,
  rates: ProxyFaultRates,
  random: Random,
): Promise<FaultProxy> => {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const counts: Record<ProxyFault, number> = { 'reset-before': 0, 'drop-after': 0, delay: 0 };
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let enabled = true;

  const draw = (): ProxyFault | undefined => {
    if (!enabled) return undefined;
    const roll = random();
    if (roll < rates.resetBefore) return 'reset-before';
    if (roll < rates.resetBefore + rates.dropAfter) return 'drop-after';
    if (roll < rates.resetBefore + rates.dropAfter + rates.delay) return 'delay';
    return undefined;
  };

  const forward = async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const fault = draw();
    const body = await readAll(incoming);
    if (fault === 'reset-before') {
      counts[fault] += 1;
      incoming.socket.destroy();
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(incoming.headers).filter(([name]) => !hopByHop.has(name.toLowerCase())),
    );
    const upstreamRequest = httpRequest({
      host: target.hostname,
      port: target.port,
      method: incoming.method,
      path: incoming.url,
      headers: { ...headers, 'content-length': String(body.length) },
      agent,
    });
    const responded = new Promise<IncomingMessage>((resolve, reject) => {
      upstreamRequest.once('response', resolve);
      upstreamRequest.once('error', reject);
    });
    upstreamRequest.end(body);
    const response = await responded;
    const answer = await readAll(response).catch(() => undefined);
    if (answer === undefined) {
      incoming.socket.destroy();
      return;
    }
    const send = () => {
      if (incoming.socket.destroyed) return;
      const responseHeaders = Object.fromEntries(
        Object.entries(response.headers).filter(([name]) => !hopByHop.has(name.toLowerCase())),
      );
      outgoing.writeHead(response.statusCode ?? 502, {
        ...responseHeaders,
        'content-length': String(answer.length),
      });
      outgoing.end(answer);
    };
    if (fault === 'drop-after') {
      counts[fault] += 1;
      incoming.socket.destroy();
    } else if (fault === 'delay') {
      counts[fault] += 1;
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, rates.delayMs);
      timers.add(timer);
    } else {
      send();
    }
  };

  const server = createServer((incoming, outgoing) => {
    forward(incoming, outgoing).catch(() => incoming.socket.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    counts: () => ({ ...counts }),
    setEnabled: (value) => {
      enabled = value;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
