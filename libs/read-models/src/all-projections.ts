import type { ProjectionDefinition } from '@once/projections';
import { idempotencyKeysProjection } from './idempotency-keys/index.js';
import { invoicesProjection } from './invoices/index.js';
import { ordersProjection } from './orders/index.js';
import { stockCountsProjection } from './stock-counts/index.js';

/** Every read model the projector runs, in the order they start. */
export const allProjections: readonly ProjectionDefinition[] = [
  idempotencyKeysProjection,
  invoicesProjection,
  ordersProjection,
  stockCountsProjection,
];
