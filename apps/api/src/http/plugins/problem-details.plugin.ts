import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { Problem } from '@once/idempotency/fastify';
import type { ProblemAnswer, ProblemDocument } from '@once/idempotency/fastify';
import { HttpProblem } from '@once/cafe';
import type { ApiProblemCatalog, ApiProblemType } from '@once/cafe';
import { storeFailureProblem } from '../problems/index.js';

export interface ProblemDetailsOptions {
  /** Every problem the api answers with. */
  readonly catalog: ApiProblemCatalog;
  /** The problem an error of another layer stands for (a domain refusal), if any. */
  readonly problemOf: (error: Error) => Problem<ApiProblemType> | undefined;
}

declare module 'fastify' {
  interface FastifyReply {
    /** Sends an RFC 9457 problem as `application/problem+json`. */
    sendProblem(problem: ProblemDocument, headers?: Readonly<Record<string, string>>): FastifyReply;
  }
}

const fastifyCodes: Readonly<Record<string, ApiProblemType>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body-too-large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid-request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid-json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid-json',
};

/**
 * The one root error handler: schema errors → 400 `invalid-request`, domain errors → their catalog status,
 * body too large → 413, unsupported media type → 415, invalid JSON → 400, store failures → 503 with `Retry-After` and
 * a type per cause (`storeFailureProblem`), anything else → 500 (logged once).
 * Every answer is `application/problem+json`. Unknown routes answer 404 `not-found` the same way.
 */
export const problemDetailsPlugin = fp<ProblemDetailsOptions>(
  async (app, { catalog, problemOf }) => {
    app.decorateReply('sendProblem', function sendProblem(this: FastifyReply, problem, headers = {}) {
      return this.code(problem.status)
        .headers(headers)
        .type('application/problem+json')
        .send(JSON.stringify(problem));
    });

    const answer = (type: ApiProblemType, detail?: string, extensions?: Record<string, unknown>) =>
      catalog.answer(
        new HttpProblem(type, {
          ...(detail === undefined ? {} : { detail }),
          ...(extensions === undefined ? {} : { extensions }),
        }),
      );

    const toProblem = (error: FastifyError | Error, request: FastifyRequest): ProblemAnswer => {
      if (error instanceof Problem && catalog.has(error.type)) return catalog.answer(error);
      if (hasZodFastifySchemaValidationErrors(error)) {
        return answer(
          'invalid-request',
          `the request's ${String(error.validationContext ?? 'input')} is invalid`,
          {
            errors: error.validation.map((issue) => ({ pointer: issue.instancePath, detail: issue.message })),
          },
        );
      }
      const problem = problemOf(error);
      if (problem) return catalog.answer(problem);
      const code = 'code' in error ? error.code : undefined;
      const mapped = typeof code === 'string' ? fastifyCodes[code] : undefined;
      if (mapped) return answer(mapped, error.message);
      const status = 'statusCode' in error ? error.statusCode : undefined;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return answer('invalid-request', error.message);
      }
      const storeFailure = storeFailureProblem(error);
      if (storeFailure) {
        request.log.warn({ err: error, problem: storeFailure.type }, 'store unavailable');
        return catalog.answer(storeFailure);
      }
      request.log.error({ err: error }, 'unexpected error');
      return answer('internal');
    };

    app.setErrorHandler((error: FastifyError | Error, request, reply) => {
      const { body, headers } = toProblem(error, request);
      return reply.sendProblem({ ...body, instance: request.url.split('?')[0] }, headers);
    });

    app.setNotFoundHandler((request, reply) =>
      reply.sendProblem(
        answer('not-found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`).body,
      ),
    );
  },
  { name: 'once-problem-details', fastify: '5.x' },
);
