import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { maxMenuItems } from '@once/domain/menus';
import { listMenu } from '@once/read-models';
import { commandProblems, idempotencyKeyHeader, problemView } from '../http/commands/command-schemas.js';
import { readConsistencyHeaders, readModelDescription, readYourWrites } from '../http/consistency/index.js';
import {
  emptyBody,
  menuItemParams,
  menuItemView,
  menuView,
  setMenuItem,
  setMenuItemBody,
  withdrawMenuItem,
  withdrawnMenuItemView,
} from '@once/cafe';

/**
 * The tenant's menu: `GET /menu` (what a till shows), and the keyed commands on the tenant's menu aggregate that
 * set and withdraw items (`PUT`, `DELETE /menu/items/:sku`). Every order is priced from the aggregate when it arrives.
 */
export const menuRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['menu'];

  app.get(
    '/',
    {
      config: { role: 'staff' },
      schema: {
        operationId: 'getMenu',
        summary: 'The menu with current prices',
        description: readModelDescription(
          'The items on the menu, in the order they were added. A till keeps a copy to show prices offline; the ' +
            'server prices every order from the menu itself when the order arrives.',
        ),
        tags,
        headers: readConsistencyHeaders,
        response: { 200: menuView, 400: problemView, 401: problemView, 503: problemView },
      },
    },
    async (request, reply) => ({
      items: [
        ...(await readYourWrites(request, reply, 'menu_entries', () =>
          listMenu(app.pg, request.principal.tenantId),
        )),
      ],
    }),
  );

  app.command({
    method: 'PUT',
    url: '/items/:sku',
    config: { role: 'admin' },
    schema: {
      operationId: 'setMenuItem',
      summary: 'Add a menu item, or change its name or price',
      description:
        `Sets the item to exactly these values (no event when it already reads so). A menu holds at most ` +
        `${String(maxMenuItems)} items (409 \`menu-full\`). Orders arriving from now on are priced at this price; ` +
        'one a till showed at the old price is held for review.',
      tags,
      headers: idempotencyKeyHeader,
      params: menuItemParams,
      body: setMenuItemBody,
      response: { 200: menuItemView, ...commandProblems },
    },
    command: setMenuItem,
  });

  app.command({
    method: 'DELETE',
    url: '/items/:sku',
    config: { role: 'admin' },
    schema: {
      operationId: 'withdrawMenuItem',
      summary: 'Withdraw a menu item',
      description:
        'Orders for the item are refused from now on (422 `item-not-on-menu`) until it is set again; 404 ' +
        '`menu-item-not-found` when it is not on the menu.',
      tags,
      headers: idempotencyKeyHeader,
      params: menuItemParams,
      // No body, or an empty object: anything else is a 400 before the key is claimed.
      body: emptyBody.nullable(),
      response: { 200: withdrawnMenuItemView, ...commandProblems },
    },
    command: withdrawMenuItem,
  });
};
