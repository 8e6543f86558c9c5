import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HttpProblem } from '../problems/problem.js';
import type { ProblemDetails } from '../problems/problem.js';
import { problemTypeUri } from '../problems/problem-catalog.js';
import type { HttpProblemType, ProblemCatalog } from '../problems/problem-catalog.js';

/** A rule violation decided by the domain: its `code` is a problem type in the catalog. */
export interface CodedError {
  readonly code: string;
  readonly data?: unknown;
}

export interface ProblemDetailsOptions {
  readonly catalog: ProblemCatalog;
  /** Recognises the domain's errors (their `code` names the problem). */
  readonly isDomainError: (error: unknown) => error is Error & CodedError;
}

declare module 'fastify' {
  interface FastifyReply {
    /** Sends an RFC 9457 problem as `application/problem+json`. */
    sendProblem(problem: ProblemDetails, headers?: Readonly<Record<string, string>>): FastifyReply;
  }
}

const fastifyCodes: Readonly<Record<string, HttpProblemType>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body-too-large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid-request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid-json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid-json',
};

/** Driver errors that mean "the store is not answering now" (PostgreSQL classes 08, 53300, 57P0x; socket errors). */
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '53300',
  '57P01',
  '57P02',
  '57P03',
]);
const isStoreUnavailable = (error: Error): boolean => {
  const code = 'code' in error ? error.code : undefined;
  return typeof code === 'string' && (unavailableCodes.has(code) || code.startsWith('08'));
};

const httpProblem = (type: HttpProblemType, detail?: string, extensions?: Record<string, unknown>) =>
  new HttpProblem(type, detail, extensions).toProblem();

/**
 * The one root error handler: schema errors → 400 `invalid-request`, domain errors → their catalog status,
 * body too large → 413, unsupported media type → 415, invalid JSON → 400, anything else → 500 (logged once).
 * Every answer is `application/problem+json`. Unknown routes answer 404 `not-found` the same way.
 */
export const problemDetailsPlugin = fp<ProblemDetailsOptions>(
  async (app, { catalog, isDomainError }) => {
    app.decorateReply('sendProblem', function sendProblem(this: FastifyReply, problem, headers = {}) {
      return this.code(problem.status)
        .headers(headers)
        .type('application/problem+json')
        .send(JSON.stringify(problem));
    });

    const toProblem = (
      error: FastifyError | Error,
      request: FastifyRequest,
    ): { problem: ProblemDetails; headers?: Record<string, string> } => {
      if (error instanceof HttpProblem) return { problem: error.toProblem(), headers: { ...error.headers } };
      if (hasZodFastifySchemaValidationErrors(error)) {
        return {
          problem: httpProblem(
            'invalid-request',
            `the request's ${String(error.validationContext ?? 'input')} is invalid`,
            {
              errors: error.validation.map((issue) => ({
                pointer: issue.instancePath,
                detail: issue.message,
              })),
            },
          ),
        };
      }
      if (isDomainError(error)) {
        const documented = catalog.get(error.code);
        if (documented) {
          return {
            problem: {
              type: problemTypeUri(error.code),
              title: documented.title,
              status: documented.status,
              detail: error.message,
              ...(error.data && typeof error.data === 'object' ? { data: error.data } : {}),
            },
          };
        }
      }
      const code = 'code' in error ? error.code : undefined;
      const mapped = typeof code === 'string' ? fastifyCodes[code] : undefined;
      if (mapped) return { problem: httpProblem(mapped, error.message) };
      const status = 'statusCode' in error ? error.statusCode : undefined;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return { problem: httpProblem('invalid-request', error.message) };
      }
      if (isStoreUnavailable(error)) {
        request.log.warn({ err: error }, 'store unavailable');
        return { problem: httpProblem('service-unavailable'), headers: { 'retry-after': '1' } };
      }
      request.log.error({ err: error }, 'unexpected error');
      return { problem: httpProblem('internal') };
    };

    app.setErrorHandler((error: FastifyError | Error, request, reply) => {
      const { problem, headers } = toProblem(error, request);
      return reply.sendProblem({ ...problem, instance: request.url.split('?')[0] }, headers);
    });

    app.setNotFoundHandler((request, reply) =>
      reply.sendProblem({
        ...httpProblem('not-found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`),
      }),
    );
  },
  { name: 'once-problem-details', fastify: '5.x' },
);
