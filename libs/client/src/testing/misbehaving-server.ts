import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the server does with one arriving request, instead of answering it properly. */
export type Fault =
  /** Runs the handler (the effect happens and is stored), then destroys the socket: the answer is lost. */
  | { readonly kind: 'drop-after-handling' }
  /** 503 with this `Retry-After` value; the handler does not run. */
  | { readonly kind: 'unavailable'; readonly retryAfter: string }
  /** 409 `idempotency-key-in-flight` with `Retry-After: 1`; the handler does not run. */
  | { readonly kind: 'in-flight' }
  /** Never answers (until the server closes). */
  | { readonly kind: 'hang' }
  /** 401: the credentials were refused; nothing is stored. */
  | { readonly kind: 'unauthorized' };

/** One request as it reached the server. */
export interface ArrivedRequest {
  readonly method: string;
  readonly path: string;
  /** The raw `Idempotency-Key` header. */
  readonly keyHeader: string | undefined;
  /** The key with the sf-string quotes removed. */
  readonly key: string | undefined;
  readonly body: string;
  readonly authorization: string | undefined;
  readonly fault: Fault['kind'] | undefined;
}

/** One effect the handler carried out: once per key, however often the key arrives. */
export interface Effect {
  readonly key: string;
  readonly body: string;
  readonly status: number;
  readonly responseText: string;
}

/** A real HTTP server on 127.0.0.1 that keeps keys like the Once API and misbehaves on request. */
export interface MisbehavingServer {
  readonly url: string;
  readonly arrivals: ArrivedRequest[];
  readonly effects: Effect[];
  /** Queues faults: the next arrivals (of any key) get them, one each, in order. */
  failNext(...faults: Fault[]): void;
  /** Queues faults for the next arrivals of one key. */
  failKey(key: string, ...faults: Fault[]): void;
  /** Called after every arrival is recorded (before it is answered). */
  onArrival(listener: (arrival: ArrivedRequest) => void): void;
  /** Serves static files too (for the browser tests): path → [content type, body]. */
  serveStatic(path: string, contentType: string, body: string): void;
  close(): Promise<void>;
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const unquote = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined;
  const match = /^"((?:[^"\\]|\\["\\])*)"$/.exec(header.trim());
  return match === null ? header.trim() : (match[1] ?? '').replace(/\\(["\\])/g, '$1');
};

const sendProblem = (
  response: ServerResponse,
  status: number,
  type: string,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  response.end(JSON.stringify({ type: `/problems/${type}`, title: type, status }));
};

/**
 * Starts the server on an ephemeral port of 127.0.0.1. Requests with a body whose `holdForReview` is true get a
 * stored 422 `held-for-review` (a business rejection decided after execution began, replayed like a success).
 */
export const startMisbehavingServer = async (): Promise<MisbehavingServer> => {
  const arrivals: ArrivedRequest[] = [];
  const effects: Effect[] = [];
  const stored = new Map<string, Effect>();
  const anyKeyFaults: Fault[] = [];
  const keyFaults = new Map<string, Fault[]>();
  const listeners: Array<(arrival: ArrivedRequest) => void> = [];
  const statics = new Map<string, { contentType: string; body: string }>();
  const sockets = new Set<Socket>();

  const handle = (key: string, body: string): Effect => {
    const existing = stored.get(key);
    if (existing !== undefined) return existing;
    const parsed = JSON.parse(body === '' ? '{}' : body) as { holdForReview?: boolean };
    const effect: Effect =
      parsed.holdForReview === true
        ? {
            key,
            body,
            status: 422,
            responseText: JSON.stringify({
              type: '/problems/held-for-review',
              title: 'Held for review',
              status: 422,
            }),
          }
        : {
            key,
            body,
            status: 201,
            responseText: JSON.stringify({
              effect: effects.length + 1,
              received: JSON.parse(body || 'null'),
            }),
          };
    stored.set(key, effect);
    effects.push(effect);
    return effect;
  };

  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const path = request.url ?? '/';
      const page = statics.get(path.split('?')[0] ?? path);
      if (request.method === 'GET' && page !== undefined) {
        response.writeHead(200, { 'content-type': page.contentType, 'cache-control': 'no-store' });
        response.end(page.body);
        return;
      }
      const keyHeader = request.headers['idempotency-key'];
      const key = unquote(typeof keyHeader === 'string' ? keyHeader : undefined);
      const forKey = key === undefined ? undefined : keyFaults.get(key);
      const fault = forKey?.shift() ?? anyKeyFaults.shift();
      const arrival: ArrivedRequest = {
        method: request.method ?? '',
        path,
        keyHeader: typeof keyHeader === 'string' ? keyHeader : undefined,
        key,
        body,
        authorization: request.headers.authorization,
        fault: fault?.kind,
      };
      arrivals.push(arrival);
      for (const listener of listeners) listener(arrival);

      if (key === undefined || key.length < 8) {
        sendProblem(response, 400, key === undefined ? 'idempotency-key-missing' : 'idempotency-key-invalid');
        return;
      }
      switch (fault?.kind) {
        case undefined:
          break;
        case 'hang':
          return;
        case 'unavailable':
          sendProblem(response, 503, 'unavailable', { 'retry-after': fault.retryAfter });
          return;
        case 'in-flight':
          sendProblem(response, 409, 'idempotency-key-in-flight', { 'retry-after': '1' });
          return;
        case 'unauthorized':
          sendProblem(response, 401, 'unauthorized');
          return;
        case 'drop-after-handling':
          handle(key, body);
          request.socket.destroy();
          return;
        default: {
          const _exhaustive: never = fault;
          return _exhaustive;
        }
      }
      const replayed = stored.has(key);
      const effect = handle(key, body);
      response.writeHead(effect.status, {
        'content-type': effect.status < 300 ? 'application/json' : 'application/problem+json',
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
      response.end(effect.responseText);
    })();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    effects,
    failNext: (...faults) => anyKeyFaults.push(...faults),
    failKey: (key, ...faults) => keyFaults.set(key, [...(keyFaults.get(key) ?? []), ...faults]),
    onArrival: (listener) => listeners.push(listener),
    serveStatic: (path, contentType, body) => statics.set(path, { contentType, body }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
};
