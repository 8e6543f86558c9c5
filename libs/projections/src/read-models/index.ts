import type { ProjectionDefinition } from '../runner/projection-definition.js';
import { idempotencyKeysProjection } from './idempotency-keys/index.js';

/** Every read model the projector runs, in the order they start. */
export const allProjections: readonly ProjectionDefinition[] = [idempotencyKeysProjection];
