import type { ProjectionDefinition } from '@once/projections';
import { cardSettlementsProjection } from './card-settlements/index.js';
import { idempotencyKeysProjection } from './idempotency-keys/index.js';
import { invoicesProjection } from './invoices/index.js';
import { menusProjection } from './menus/index.js';
import { ordersProjection } from './orders/index.js';
import { stockCountsProjection } from './stock-counts/index.js';

/** Every read model the projector runs, in the order they start. */
export const allProjections: readonly ProjectionDefinition[] = [
  idempotencyKeysProjection,
  invoicesProjection,
  ordersProjection,
  stockCountsProjection,
  cardSettlementsProjection,
  menusProjection,
];
