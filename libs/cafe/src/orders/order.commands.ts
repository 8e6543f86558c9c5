import { z } from 'zod';
import { emptyBody, routeCommand } from '../commands/route-command.js';
import { orderIdParams, placeOrderBody } from './order.schemas.js';

/** `POST /orders`: the till's lines and the total it showed; the order's id comes from the key. */
export const placeOrder = routeCommand(
  'PlaceOrder',
  1,
  z.object({ body: placeOrderBody }).transform(({ body }) => body),
);

const onOrder = z
  .object({ params: orderIdParams, body: emptyBody.nullable() })
  .transform(({ params }) => ({ orderId: params.id }));

/** `POST /orders/:id/approve`: an order held for review (prices changed) is accepted at its current total. */
export const approveOrder = routeCommand('ApproveOrder', 1, onOrder);

/** `POST /orders/:id/serve`. */
export const serveOrder = routeCommand('ServeOrder', 1, onOrder);

/** `POST /orders/:id/complete`. */
export const completeOrder = routeCommand('CompleteOrder', 1, onOrder);
