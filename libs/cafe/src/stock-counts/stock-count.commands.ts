import { z } from 'zod';
import { emptyBody, routeCommand } from '../commands/route-command.js';
import { recordCountLineBody, stockCountIdParams } from './stock-count.schemas.js';

/** `POST /stock-counts`: opens a count; its id comes from the key. */
export const openStockCount = routeCommand(
  'OpenStockCount',
  1,
  z.object({ body: emptyBody.nullable() }).transform(() => ({})),
);

/** `POST /stock-counts/:id/lines`. */
export const recordCountLine = routeCommand(
  'RecordCountLine',
  1,
  z
    .object({ params: stockCountIdParams, body: recordCountLineBody })
    .transform(({ params, body }) => ({ stockCountId: params.id, ...body })),
);

/** `POST /stock-counts/:id/post`. */
export const postStockCount = routeCommand(
  'PostStockCount',
  1,
  z
    .object({ params: stockCountIdParams, body: emptyBody.nullable() })
    .transform(({ params }) => ({ stockCountId: params.id })),
);
