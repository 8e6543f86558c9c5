import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import type { IdempotencyEngine } from '../engine/index.js';
import {
  idempotencyKeyLines,
  REPLAYED_HEADER,
  routeCommands,
  runKeyedCommand,
  toHttpAnswer,
} from '../http/index.js';
import type {
  AnswerSettings,
  CommandAdapterOptions,
  CommandAnswer,
  CommandRouteSettings,
} from '../http/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import { idempotencyProblems } from '../problems/index.js';

export interface IdempotencyPluginOptions extends CommandAdapterOptions<FastifyRequest> {
  /**
   * Throw each problem (a `Problem` of `problems`) and each failed command's error to the app's root error handler
   * instead of answering it here, so the app answers every error in one place. Default false.
   */
  readonly throwProblems?: boolean;
}

/** A command route: Fastify's route options with its command instead of a handler (POST unless `method` says). */
export type CommandRouteOptions = Omit<RouteOptions, 'handler' | 'method'> &
  CommandRouteSettings & { readonly method?: RouteOptions['method'] };

export interface IdempotencyDecorator {
  readonly engine: IdempotencyEngine;
  /**
   * A route handler that runs the route's command under the request's Idempotency-Key; the handler of each of its
   * commands is bound here, once.
   */
  command(settings: CommandRouteSettings): RouteHandlerMethod;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The command a route runs (set by `commandRoute`): the plugin binds its handler when the route is declared. */
    readonly idempotentCommand?: CommandRouteSettings;
  }
  interface FastifyInstance {
    idempotency: IdempotencyDecorator;
    /**
     * Declares a command route on this instance (its prefix and hooks apply): the route's schema validates the
     * request, its command definition builds the typed command, and the bound handler runs it exactly once.
     */
    command(route: CommandRouteOptions): FastifyInstance;
  }
}

const principalScope = (request: FastifyRequest): IdempotencyScope | undefined => {
  const principal: unknown = Reflect.get(request, 'principal');
  if (typeof principal !== 'object' || principal === null) return undefined;
  const tenantId: unknown = Reflect.get(principal, 'tenantId');
  const actorId: unknown = Reflect.get(principal, 'actorId');
  return typeof tenantId === 'string' && typeof actorId === 'string' ? { tenantId, actorId } : undefined;
};

const idempotencyPlugin: FastifyPluginAsync<IdempotencyPluginOptions> = async (fastify, options) => {
  const { engine } = options;
  const getScope = options.getScope ?? principalScope;
  const problems = options.problems ?? idempotencyProblems;
  const missing = idempotencyProblems
    .entries()
    .map(([type]) => type)
    .filter((type) => !problems.has(type));
  if (missing.length > 0) throw new Error(`the problem catalogue lacks ${missing.join(', ')}`);

  const answerSettings: AnswerSettings = {
    knowsProblem: (type) => problems.has(type),
    ...(options.problemOfStoreError ? { problemOfStoreError: options.problemOfStoreError } : {}),
  };

  /**
   * Sets the answer's status and headers and hands back its body for Fastify to send. The handler returns the body,
   * not the reply: an async handler that returns the reply makes its promise adopt it, and a reply adopted before its
   * `onSend` hooks have run waits on the socket's end with listeners of its own, on every request.
   */
  const answerWith = (request: FastifyRequest, reply: FastifyReply, answer: CommandAnswer): string => {
    if (answer.kind === 'failed') {
      const { defect } = answer;
      if (options.throwProblems)
        throw defect instanceof Error ? defect : new Error('the command failed', { cause: defect });
      options.onError?.(defect, request);
    }
    if (answer.kind === 'problem') {
      if (answer.cause !== undefined) options.onError?.(answer.cause, request);
      if (options.throwProblems) throw answer.problem;
    }
    const { status, headers, body } = toHttpAnswer(answer, problems);
    reply.removeHeader(REPLAYED_HEADER);
    void reply.code(status).headers(headers);
    return body;
  };

  const command = (settings: CommandRouteSettings): RouteHandlerMethod => {
    const commands = routeCommands(settings, options.handlers);
    return async function idempotentCommand(request, reply) {
      const { answer, outcome } = await runKeyedCommand(
        engine,
        commands,
        {
          idempotencyKey: idempotencyKeyLines(request.raw.rawHeaders) ?? request.headers['idempotency-key'],
          scope: getScope(request),
          method: request.method,
          route: request.routeOptions.url ?? request.url,
          params: (request.params ?? {}) as Readonly<Record<string, unknown>>,
          body: request.body,
          ...(settings.retentionSeconds === undefined ? {} : { retentionSeconds: settings.retentionSeconds }),
          traceHeaders: request.headers,
        },
        answerSettings,
      );
      if (outcome !== undefined) await options.onOutcome?.(request, outcome);
      return answerWith(request, reply, answer);
    };
  };

  fastify.decorate('idempotency', { engine, command } satisfies IdempotencyDecorator);
  fastify.addHook('onRoute', (route) => {
    const settings = route.config?.idempotentCommand;
    if (settings !== undefined) route.handler = command(settings);
  });
  fastify.decorate('command', function declareCommand(this: FastifyInstance, route: CommandRouteOptions) {
    return this.route(commandRoute(route));
  });
};

/**
 * Wires the idempotency engine to command routes: parses `Idempotency-Key`, scopes it to the caller, runs the
 * handler on first execution only, and maps every outcome to HTTP (replays byte-identical with
 * `Idempotent-Replayed: true`; 400/409/422/503 as problem+json). A client can never mark a response as replayed.
 *
 * @example
 * await app.register(idempotencyFastifyPlugin, { engine, handlers: commandHandlers([bindCommand(increment, handler)]) });
 * app.command({ url: '/counters/:id/increments', command: increment });
 */
export const idempotencyFastifyPlugin = fp(idempotencyPlugin, { name: 'once-idempotency', fastify: '5.x' });

const withoutPlugin: RouteHandlerMethod = () => {
  throw new Error('a command route is declared after idempotencyFastifyPlugin is registered');
};

/**
 * A command route as route options, for `app.route` (or use `app.command`): the route runs its command under the
 * request's key. The plugin's `onRoute` hook binds the command's handler when the route is declared.
 *
 * @example
 * app.route(commandRoute({ url: '/counters/:id/increments', command: increment }));
 */
export const commandRoute = (route: CommandRouteOptions): RouteOptions => {
  const { command, retentionSeconds, method, config, ...rest } = route;
  const settings: CommandRouteSettings = {
    command,
    ...(retentionSeconds === undefined ? {} : { retentionSeconds }),
  };
  return {
    ...rest,
    method: method ?? 'POST',
    config: { ...config, idempotentCommand: settings },
    handler: withoutPlugin,
  };
};
