import { z } from 'zod';
import { emptyBody, routeCommand } from '../commands/route-command.js';
import { menuItemParams, setMenuItemBody } from './menu.schemas.js';

/** `PUT /menu/items/:sku`: the item's name and price, exactly. */
export const setMenuItem = routeCommand(
  'SetMenuItem',
  1,
  z.object({ params: menuItemParams, body: setMenuItemBody }).transform(({ params, body }) => ({
    sku: params.sku,
    ...body,
  })),
);

/** `DELETE /menu/items/:sku`. */
export const withdrawMenuItem = routeCommand(
  'WithdrawMenuItem',
  1,
  z
    .object({ params: menuItemParams, body: emptyBody.nullable() })
    .transform(({ params }) => ({ sku: params.sku })),
);
