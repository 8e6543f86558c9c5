import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { problemView } from '../commands/command-schemas.js';
import { menuItemParams, menuItemView, menuView, putMenuItemBody } from './menu.schemas.js';
import { listMenu, putMenuItem } from './menu.store.js';

/** The tenant's menu: `GET /menu` (what a till shows and prices orders with), `PUT /menu/items/:sku` (a price). */
export const menuRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    {
      config: { role: 'staff' },
      schema: {
        summary: 'The menu with current prices',
        description:
          'Read from the `menu_items` table at once (not a projection). A till keeps a copy for offline use and ' +
          'prices an order with it when it submits the order.',
        tags: ['menu'],
        response: { 200: menuView, 401: problemView },
      },
    },
    async (request) => ({ items: [...(await listMenu(app.pg, request.principal.tenantId))] }),
  );

  app.put(
    '/items/:sku',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Add a menu item or change its price',
        description:
          'Sets the item to exactly these values: repeating the request changes nothing, so no Idempotency-Key is ' +
          'needed. Orders already queued on a till with the old price are held for review when they arrive.',
        tags: ['menu'],
        params: menuItemParams,
        body: putMenuItemBody,
        response: { 200: menuItemView, 400: problemView, 401: problemView },
      },
    },
    async (request) =>
      putMenuItem(app.pg, request.principal.tenantId, { sku: request.params.sku, ...request.body }),
  );
};
