import { describe, expect, it } from 'vitest';
import { createIdempotentClient } from '../client/index.js';
import { createMemoryIntentStorage } from '../storage/index.js';
import { createOnceApi } from './index.js';
import type { OnceCommandRoute } from './index.js';

// A service's `paths` as openapi-typescript writes them: two commands (they require Idempotency-Key) and a read.
interface ShopPaths {
  '/carts/{cartId}/items/{sku}': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: { query?: never; header?: never; path: { cartId: string; sku: string }; cookie?: never };
      requestBody?: never;
      responses: {
        200: { headers: { [name: string]: unknown }; content: { 'application/json': { qty: number } } };
      };
    };
    put: {
      parameters: {
        query?: never;
        header: { 'idempotency-key': string };
        path: { cartId: string; sku: string };
        cookie?: never;
      };
      requestBody: { content: { 'application/json': { qty: number } } };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: { 'application/json': { sku: string; qty: number } };
        };
        422: {
          headers: { [name: string]: unknown };
          content: { 'application/problem+json': { type: string } };
        };
      };
    };
    post?: never;
    delete?: never;
  };
  '/carts': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: { query?: never; header: { 'idempotency-key': string }; path?: never; cookie?: never };
      requestBody: { content: { 'application/json': { owner: string } } };
      responses: {
        201: { headers: { [name: string]: unknown }; content: { 'application/json': { cartId: string } } };
      };
    };
    delete?: never;
  };
}

const recordingClient = (answer: () => Response) => {
  const sent: { method: string; url: string; key: string | null; body: unknown }[] = [];
  const client = createIdempotentClient({
    storage: createMemoryIntentStorage(),
    baseUrl: 'http://shop.test',
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({
        method: init?.method ?? 'GET',
        url: String(input),
        key: headers.get('idempotency-key'),
        body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      });
      return answer();
    },
  });
  return { client, sent };
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('createOnceApi over a service’s openapi-typescript paths', () => {
  it('names as commands only the operations that require an Idempotency-Key', () => {
    const routes: OnceCommandRoute<ShopPaths>[] = ['POST /carts', 'PUT /carts/{cartId}/items/{sku}'];
    expect(routes).toHaveLength(2);
    // @ts-expect-error a read takes no key: it is no command
    const read: OnceCommandRoute<ShopPaths> = 'GET /carts/{cartId}/items/{sku}';
    expect(read).toBeDefined();
  });

  it('sends a command with its method, its path parameters encoded, its body and a key', async () => {
    const { client, sent } = recordingClient(() => json(200, { sku: 'flat white', qty: 2 }));
    const shop = createOnceApi<ShopPaths>(client);
    const set = await shop.command('PUT /carts/{cartId}/items/{sku}', {
      params: { cartId: 'c-1', sku: 'flat white' },
      body: { qty: 2 },
    });
    expect(set.kind).toBe('succeeded');
    if (set.kind === 'succeeded') expect(set.body.qty).toBe(2);
    expect(sent).toEqual([
      {
        method: 'PUT',
        url: 'http://shop.test/carts/c-1/items/flat%20white',
        key: expect.stringMatching(/\S{8,}/) as unknown,
        body: { qty: 2 },
      },
    ]);
  });

  it('types a route without path parameters as taking none, and checks each body', async () => {
    const { client, sent } = recordingClient(() => json(201, { cartId: 'c-2' }));
    const shop = createOnceApi<ShopPaths>(client);
    const opened = await shop.command('POST /carts', { body: { owner: 'ada' } });
    expect(opened.kind === 'succeeded' ? opened.body.cartId : opened.kind).toBe('c-2');
    // @ts-expect-error the body is the route's own
    await shop.command('POST /carts', { body: { qty: 1 } });
    expect(sent.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'POST http://shop.test/carts',
      'POST http://shop.test/carts',
    ]);
  });

  it('refuses a command whose path parameter is missing, before anything is stored or sent', async () => {
    const { client, sent } = recordingClient(() => json(200, {}));
    const shop = createOnceApi<ShopPaths>(client);
    const params = { cartId: 'c-1' } as { cartId: string; sku: string };
    await expect(
      shop.command('PUT /carts/{cartId}/items/{sku}', { params, body: { qty: 1 } }),
    ).rejects.toBeInstanceOf(TypeError);
    expect(sent).toEqual([]);
    expect(await client.pendingIntents()).toEqual([]);
  });
});
