import type { FastifyRequest } from 'fastify';
import type { ExecuteOutcome } from '@once/idempotency';
import type { IdempotencyPluginOptions, IdempotencyProblem } from '@once/idempotency/fastify';
import type { IdempotencyOutcome } from '../plugins/observability.plugin.js';
import { HttpProblem } from '../problems/problem.js';
import { problemTypeUri } from '../problems/problem-catalog.js';

const describedBy = (type: string) => `<${problemTypeUri(type)}>; rel="describedby"; type="text/html"`;

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
 * The api's problems for the idempotency layer's refusals, thrown to the root error handler so they come from the
 * api's one catalogue (relative `/problems/<type>` URIs, `Link` to the type's page, `Retry-After`).
 */
const onProblem = (problem: IdempotencyProblem, request: FastifyRequest): never => {
  const retryAfter: Record<string, string> =
    problem.retryAfterSeconds === undefined ? {} : { 'retry-after': String(problem.retryAfterSeconds) };
  switch (problem.type) {
    case 'idempotency-key-missing':
    case 'idempotency-key-invalid':
      throw new HttpProblem(
        problem.type,
        `Idempotency-Key: ${problem.reason ?? ''}`,
        { reason: problem.reason },
        { link: describedBy(problem.type) },
      );
    case 'idempotency-key-in-flight':
      throw new HttpProblem(
        problem.type,
        undefined,
        { retryAfterSeconds: problem.retryAfterSeconds },
        { ...retryAfter, link: describedBy(problem.type) },
      );
    case 'idempotency-key-reused':
      throw new HttpProblem(
        problem.type,
        `the key was first used for ${problem.original?.method ?? ''} ${problem.original?.route ?? ''} with another body`,
        {},
        { link: describedBy(problem.type) },
      );
    case 'internal-error':
      throw problem.error instanceof Error
        ? problem.error
        : new Error('the command failed', { cause: problem.error });
    case 'service-unavailable':
      // A handler's own 503 problem (the card gateway is down) keeps its type, with the engine's Retry-After.
      if (problem.error instanceof HttpProblem) {
        throw new HttpProblem(problem.error.type, problem.error.detail, problem.error.extensions, retryAfter);
      }
      if (problem.error)
        request.log.warn({ err: problem.error, reason: problem.reason }, 'command unavailable');
      throw new HttpProblem(
        'service-unavailable',
        `retry with the same key (${problem.reason ?? 'store-error'})`,
        {},
        retryAfter,
      );
    case 'unauthenticated':
      throw new HttpProblem('unauthorized');
    default: {
      const _exhaustive: never = problem.type;
      return _exhaustive;
    }
  }
};

/** How the api renders the idempotency plugin's outcomes and problems (`idempotencyFastifyPlugin` options). */
export const apiIdempotencyOptions: Pick<IdempotencyPluginOptions, 'getScope' | 'onOutcome' | 'onProblem'> = {
  getScope: (request) => request.principal,
  onOutcome,
  onProblem,
};
