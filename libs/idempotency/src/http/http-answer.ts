import { Problem } from '../problems/index.js';
import type { IdempotencyProblemType } from '../problems/index.js';
import type { IdempotencyProblemCatalog } from './problem-catalog-port.js';
import type { CommandAnswer } from './keyed-command.js';

/** The response header that marks a replayed answer; a client can never set it. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** A command answer as bytes on the wire: what every adapter writes, and nothing else. */
export interface HttpAnswer {
  readonly status: number;
  /** Lower-case names; `content-type` always among them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Renders a command answer for the wire: a stored response byte for byte (with `Idempotent-Replayed: true` when it
 * is a replay), a problem as `application/problem+json` from the app's catalogue (status, `Link`, `Retry-After`), a
 * failed command as the catalogue's `internal` problem (its defect is for the log, never for the client).
 *
 * @example
 * const { status, headers, body } = toHttpAnswer(answer, idempotencyProblems);
 */
export const toHttpAnswer = (answer: CommandAnswer, problems: IdempotencyProblemCatalog): HttpAnswer => {
  if (answer.kind === 'response') {
    const { status, headers, body } = answer.response;
    return {
      status,
      headers: {
        ...headers,
        ...(answer.replayed ? { [REPLAYED_HEADER]: 'true' } : {}),
      },
      body,
    };
  }
  const problem =
    answer.kind === 'problem' ? answer.problem : new Problem<IdempotencyProblemType>('internal');
  const { status, headers, body } = problems.answer(problem);
  return {
    status,
    headers: { ...lowerCased(headers), 'content-type': 'application/problem+json' },
    body: JSON.stringify(body),
  };
};

const lowerCased = (headers: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
