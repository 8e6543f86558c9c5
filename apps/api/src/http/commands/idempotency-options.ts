import type { FastifyRequest } from 'fastify';
import type { ExecuteOutcome } from '@once/idempotency';
import type { IdempotencyPluginOptions } from '@once/idempotency/fastify';
import type { IdempotencyOutcome } from '../plugins/observability.plugin.js';
import { problemCatalog } from '@once/cafe';
import { storeFailureProblem } from '../problems/index.js';

const outcomeLabel = (outcome: ExecuteOutcome): IdempotencyOutcome => {
  switch (outcome.kind) {
    case 'first':
      return 'first';
    case 'replay':
      return 'replay';
    case 'in-flight':
      return 'in_flight';
    case 'reused':
      return 'reused';
    case 'expired':
      return 'expired';
    case 'released':
      return 'released';
    case 'unavailable':
      return 'unavailable';
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
};

/**
 * The api's outcome hook: labels the request for metrics and logs, and sends the outcome's position as
 * `Once-Position`: where this execution's writes reached, or on a replay where the key completed (safe to wait for,
 * since global pages end only at a write's end).
 */
const onOutcome = (request: FastifyRequest, outcome: ExecuteOutcome): void => {
  request.idempotencyOutcome = outcomeLabel(outcome);
  if ('position' in outcome && outcome.position) request.writePosition = outcome.position;
};

/**
 * How the api renders the idempotency plugin's outcomes and problems (`idempotencyFastifyPlugin` options): its
 * refusals are problems of the api's catalogue, thrown to the root error handler like every other error.
 */
export const apiIdempotencyOptions: Pick<
  IdempotencyPluginOptions,
  'getScope' | 'onOutcome' | 'problems' | 'throwProblems' | 'onError' | 'problemOfStoreError'
> = {
  getScope: (request) => request.principal,
  onOutcome,
  problems: problemCatalog,
  throwProblems: true,
  onError: (error, request) => request.log.warn({ err: error }, 'command unavailable'),
  problemOfStoreError: storeFailureProblem,
};
