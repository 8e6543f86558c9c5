import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import type { CommandHandler, ExecuteOutcome, IdempotencyEngine } from '../engine/index.js';
import { parseIdempotencyKeyHeader } from '../header/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import type { StoredResponse } from '../key-log/index.js';
import { idempotencyProblems } from './idempotency-problems.js';
import type { IdempotencyProblemType, ProblemDocument } from './idempotency-problems.js';

export interface IdempotencyPluginOptions {
  readonly engine: IdempotencyEngine;
  /**
   * The caller's tenant and actor, from the app's authentication. Default: `request.principal`
   * (`{ tenantId, actorId }`), as the app's auth plugin decorates it. Undefined → 401.
   */
  readonly getScope?: (request: FastifyRequest) => IdempotencyScope | undefined;
  /** Problem `type` URIs are this base plus the problem name. Default `https://once.dev/problems/`. */
  readonly problemTypeBase?: string;
  /** Where the Idempotency-Key contract is documented (`Link: <…>; rel="describedby"`). */
  readonly docsUrl?: string;
  /** Called with errors the client only sees as a 500/503 (to log them once). */
  readonly onError?: (error: unknown, request: FastifyRequest) => void;
  /**
   * Called with every engine outcome before its answer is sent (awaited), e.g. to label metrics and logs or to add
   * headers from the outcome (a replay's `position`). Not called when the request is refused before the engine runs.
   */
  readonly onOutcome?: (request: FastifyRequest, outcome: ExecuteOutcome) => void | Promise<void>;
  /**
   * Answers a problem instead of the plugin's own problem+json, so an app keeps one problem catalogue: send it on
   * `reply`, or throw (e.g. the app's problem error) to let the app's error handler answer it. Awaited.
   */
  readonly onProblem?: (problem: IdempotencyProblem, request: FastifyRequest, reply: FastifyReply) => unknown;
}

/** A problem the plugin would answer, with what an app needs to render it its own way. */
export interface IdempotencyProblem {
  readonly type: IdempotencyProblemType;
  readonly status: number;
  readonly title: string;
  /** Why the key header was refused (`idempotency-key-missing`/`-invalid`), or why the engine is unavailable. */
  readonly reason?: string;
  /** `idempotency-key-in-flight` and `service-unavailable`: when to retry. */
  readonly retryAfterSeconds?: number;
  /** `idempotency-key-reused`: the request the key was first used for. */
  readonly original?: { readonly method: string; readonly route: string };
  /** `internal-error` and `service-unavailable`: the failure behind it, when there is one. */
  readonly error?: unknown;
}

/** Per-route settings of a command. */
export interface CommandRouteSettings {
  /** The handler, or a function choosing it per request (e.g. cash vs card payments). */
  readonly handler: CommandHandler | ((request: FastifyRequest) => CommandHandler);
  /** Key retention for this route (seconds); longer for offline-capable routes. */
  readonly retentionSeconds?: number;
}

export interface IdempotencyDecorator {
  readonly engine: IdempotencyEngine;
  /** A route handler that runs `settings.handler` under the request's Idempotency-Key. */
  command(settings: CommandRouteSettings): RouteHandlerMethod;
  /** The problem `type` URI of a problem name. */
  problemType(name: IdempotencyProblemType): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    idempotency: IdempotencyDecorator;
  }
}

const REPLAYED_HEADER = 'idempotent-replayed';

const principalScope = (request: FastifyRequest): IdempotencyScope | undefined => {
  const principal: unknown = Reflect.get(request, 'principal');
  if (typeof principal !== 'object' || principal === null) return undefined;
  const tenantId: unknown = Reflect.get(principal, 'tenantId');
  const actorId: unknown = Reflect.get(principal, 'actorId');
  return typeof tenantId === 'string' && typeof actorId === 'string' ? { tenantId, actorId } : undefined;
};

/** The header's lines as sent: Node joins repeated lines with ", ", which would hide them as a list. */
const idempotencyKeyLines = (request: FastifyRequest): string | string[] | undefined => {
  const lines: string[] = [];
  const raw = request.raw.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    if (raw[index]?.toLowerCase() === 'idempotency-key') lines.push(raw[index + 1] as string);
  }
  if (lines.length === 0) return request.headers['idempotency-key'];
  return lines.length === 1 ? lines[0] : lines;
};

const idempotencyPlugin: FastifyPluginAsync<IdempotencyPluginOptions> = async (fastify, options) => {
  const { engine } = options;
  const getScope = options.getScope ?? principalScope;
  const problemTypeBase = options.problemTypeBase ?? 'https://once.dev/problems/';
  const docsUrl = options.docsUrl ?? `${problemTypeBase}idempotency-key`;
  const problemType = (name: IdempotencyProblemType): string => `${problemTypeBase}${name}`;

  const sendProblem = async (
    request: FastifyRequest,
    reply: FastifyReply,
    name: IdempotencyProblemType,
    extra: { retryAfterSeconds?: number; reason?: string } = {},
    context: Pick<IdempotencyProblem, 'original' | 'error' | 'reason'> = {},
  ): Promise<FastifyReply> => {
    const definition = idempotencyProblems[name];
    if (options.onProblem) {
      await options.onProblem(
        { type: name, status: definition.status, title: definition.title, ...extra, ...context },
        request,
        reply,
      );
      return reply;
    }
    const { retryAfterSeconds, ...rest } = extra;
    const problem: ProblemDocument = {
      type: problemType(name),
      title: definition.title,
      status: definition.status,
      ...rest,
    };
    reply.removeHeader(REPLAYED_HEADER);
    if (definition.status === 400 || definition.status === 409 || definition.status === 422) {
      reply.header('link', `<${docsUrl}>; rel="describedby"`);
    }
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    return reply.code(definition.status).type('application/problem+json').send(JSON.stringify(problem));
  };

  const sendStored = (reply: FastifyReply, response: StoredResponse, replayed: boolean): FastifyReply => {
    reply.removeHeader(REPLAYED_HEADER);
    for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
    if (replayed) reply.header(REPLAYED_HEADER, 'true');
    return reply.code(response.status).send(response.body);
  };

  const sendOutcome = async (
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: ExecuteOutcome,
  ): Promise<FastifyReply> => {
    await options.onOutcome?.(request, outcome);
    switch (outcome.kind) {
      case 'first':
        return sendStored(reply, outcome.response, false);
      case 'replay':
        return sendStored(reply, outcome.response, true);
      case 'in-flight':
        return sendProblem(request, reply, 'idempotency-key-in-flight', {
          retryAfterSeconds: outcome.retryAfterSeconds,
        });
      case 'reused':
        return sendProblem(
          request,
          reply,
          'idempotency-key-reused',
          {},
          {
            original: { method: outcome.original.method, route: outcome.original.route },
          },
        );
      case 'released':
        if (outcome.response !== undefined) return sendStored(reply, outcome.response, false);
        options.onError?.(outcome.error, request);
        return sendProblem(request, reply, 'internal-error', {}, { error: outcome.error });
      case 'unavailable':
        if (outcome.error !== undefined) options.onError?.(outcome.error, request);
        return sendProblem(
          request,
          reply,
          'service-unavailable',
          { retryAfterSeconds: outcome.retryAfterSeconds },
          { reason: outcome.reason, error: outcome.error },
        );
      default: {
        const _exhaustive: never = outcome;
        return _exhaustive;
      }
    }
  };

  const command = (settings: CommandRouteSettings): RouteHandlerMethod =>
    async function idempotentCommand(request, reply) {
      const header = parseIdempotencyKeyHeader(idempotencyKeyLines(request));
      if (!header.ok) return sendProblem(request, reply, header.problem, { reason: header.reason });
      const scope = getScope(request);
      if (scope === undefined) return sendProblem(request, reply, 'unauthenticated');
      const handler = typeof settings.handler === 'function' ? settings.handler(request) : settings.handler;
      // Fastify's params object has no prototype; the fingerprint wants a plain JSON object.
      const params: Record<string, unknown> =
        typeof request.params === 'object' && request.params !== null
          ? Object.fromEntries(Object.entries(request.params))
          : {};
      const outcome = await engine.execute({
        scope,
        key: header.key,
        request: {
          method: request.method,
          route: request.routeOptions.url ?? request.url,
          params,
          body: request.body ?? null,
        },
        handler,
        ...(settings.retentionSeconds === undefined ? {} : { retentionSeconds: settings.retentionSeconds }),
      });
      return sendOutcome(request, reply, outcome);
    };

  fastify.decorate('idempotency', { engine, command, problemType } satisfies IdempotencyDecorator);
};

/**
 * Wires the idempotency engine to command routes: parses `Idempotency-Key`, scopes it to the caller, runs the
 * handler on first execution only, and maps every outcome to HTTP (replays byte-identical with
 * `Idempotent-Replayed: true`; 400/409/422/503 as problem+json). A client can never mark a response as replayed.
 *
 * @example
 * await app.register(idempotencyFastifyPlugin, { engine });
 * app.post('/counters/:id/increments', app.idempotency.command({ handler: incrementCounter }));
 */
export const idempotencyFastifyPlugin = fp(idempotencyPlugin, { name: 'once-idempotency', fastify: '5.x' });

/**
 * A command route in one object: the route runs `command.handler` under the request's key.
 *
 * @example
 * app.route(commandRoute({ method: 'POST', url: '/counters/:id/increments', command: { handler: incrementCounter } }));
 */
export const commandRoute = (
  route: Omit<RouteOptions, 'handler'> & { readonly command: CommandRouteSettings },
): RouteOptions => {
  const { command, ...rest } = route;
  return {
    ...rest,
    handler: async function commandRouteHandler(this: FastifyInstance, request, reply) {
      return this.idempotency.command(command).call(this, request, reply);
    },
  };
};
