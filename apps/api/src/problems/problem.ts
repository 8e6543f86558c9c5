import type { HttpProblemType } from './problem-catalog.js';
import { httpProblems, problemTypeUri } from './problem-catalog.js';

/** An RFC 9457 problem details body. */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly instance?: string;
  readonly [extension: string]: unknown;
}

/**
 * An error the HTTP layer raises on purpose (auth, not found, bad key header): the root error handler answers it
 * as its problem, with `headers` added.
 */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';

  constructor(
    readonly type: HttpProblemType,
    readonly detail?: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail ?? httpProblems[type].title);
  }

  get status(): number {
    return httpProblems[this.type].status;
  }

  toProblem(): ProblemDetails {
    return {
      type: problemTypeUri(this.type),
      title: httpProblems[this.type].title,
      status: this.status,
      ...(this.detail ? { detail: this.detail } : {}),
      ...this.extensions,
    };
  }
}
