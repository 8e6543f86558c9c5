import { DomainError } from '@once/domain';
import { Problem } from '@once/idempotency';
import type { HandlerResponse } from '@once/idempotency';
import { problemCatalog } from './problem-catalog.js';
import type { ApiProblemType } from './problem-catalog.js';

/**
 * A problem the api raises on purpose (auth, not found, bad header): the root error handler answers it from the
 * api's catalogue.
 *
 * @example
 * throw new HttpProblem('not-found', { detail: 'no order o-1' });
 */
export class HttpProblem extends Problem<ApiProblemType> {}

/** A domain refusal as the api's problem: its code is the type, its message the detail, its data under `data`. */
export const domainProblem = (error: DomainError): HttpProblem =>
  new HttpProblem(error.code, { detail: error.message, extensions: { data: error.data } });

/** The domain's refusals as problems, for the root error handler. */
export const problemOfError = (error: Error): HttpProblem | undefined =>
  error instanceof DomainError ? domainProblem(error) : undefined;

/**
 * A problem as the stored response of a keyed command: `application/problem+json` text, so the first answer and
 * every replay are the same bytes.
 *
 * @example
 * return problemResponse(new HttpProblem('card-declined', { extensions: { payment } }));
 */
export const problemResponse = (problem: HttpProblem): HandlerResponse => {
  const { status, headers, body } = problemCatalog.answer(problem);
  return {
    status,
    headers: { ...headers, 'content-type': 'application/problem+json' },
    body: JSON.stringify(body),
  };
};
