import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { idempotencyProblems, parseIdempotencyKeyHeader } from '@once/idempotency';
import type {
  CommandHandler,
  ExecuteOutcome,
  IdempotencyPluginOptions,
  IdempotencyProblem,
} from '@once/idempotency';
import type { IdempotencyOutcome } from '../plugins/observability.plugin.js';
import { HttpProblem } from '../problems/problem.js';
import { problemTypeUri } from '../problems/problem-catalog.js';
import { runWithoutIdempotency } from './run-without-idempotency.js';

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
 * The api's outcome hook: labels the request for metrics and logs and, on a replay, sends the position where the key
 * completed as `Once-Position` (the engine read it anyway; safe to wait for, since global pages end only at a write's end).
 */
const onOutcome = (request: FastifyRequest, outcome: ExecuteOutcome): void => {
  request.idempotencyOutcome = outcomeLabel(outcome);
  if (outcome.kind === 'replay' && request.writeCapture && outcome.position) {
    request.writeCapture.position = outcome.position;
  }
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

/** The route's handler from `app.commands`, by method, route template and body. */
const commandHandler = (request: FastifyRequest): CommandHandler => {
  const route = request.routeOptions.url ?? request.url;
  const handler = request.server.commands.handlerFor({ method: request.method, route, body: request.body });
  if (!handler) throw new Error(`no command handler for ${request.method} ${route}`);
  return handler;
};

/** The header's lines as sent: Node joins repeated lines with ", ", which would hide them as a list. */
const idempotencyKeyLines = (request: FastifyRequest): string | string[] | undefined => {
  const lines = request.raw.headersDistinct['idempotency-key'];
  return lines === undefined || lines.length > 1 ? lines : lines[0];
};

/** The benchmark-only plain mode: the handler runs with no idempotency layer at all (the key only has to parse). */
const runPlain = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
  const header = parseIdempotencyKeyHeader(idempotencyKeyLines(request));
  if (!header.ok) {
    return onProblem(
      {
        type: header.problem,
        status: idempotencyProblems[header.problem].status,
        title: idempotencyProblems[header.problem].title,
        reason: header.reason,
      },
      request,
    );
  }
  const handler = commandHandler(request);
  const response = await runWithoutIdempotency(request.server.eventStore, handler, {
    scope: request.principal,
    key: header.key,
    request: {
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      // Fastify's params object has no prototype; the fingerprint wants a plain JSON object.
      params: typeof request.params === 'object' && request.params !== null ? { ...request.params } : {},
      body: request.body ?? null,
    },
    requestedAt: new Date(),
  });
  const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? null);
  return reply
    .code(response.status)
    .headers({ 'content-type': 'application/json; charset=utf-8', ...response.headers })
    .send(body);
};

/**
 * The handler of a command route, chosen once at registration: the idempotency plugin's `command` (see
 * `apiIdempotencyOptions` for how its answers look), with the route's handler from `app.commands`; or, in the
 * benchmark-only plain mode, the handler with no idempotency at all.
 *
 * @example
 * const runCommand = keyedCommand(app);
 * app.post('/', { schema }, async (request, reply) => runCommand(request, reply));
 */
export const keyedCommand = (
  app: FastifyInstance,
): ((request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) => {
  if (app.idempotencyMode === 'off') return runPlain;
  const command = app.idempotency.command({ handler: commandHandler });
  return async (request, reply) => {
    // The plugin's handler answers on `reply` (or throws to the root error handler).
    await command.call(app, request, reply);
    return reply;
  };
};
