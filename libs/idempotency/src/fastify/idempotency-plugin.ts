import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import type { CommandDefinition, CommandHandlers, CommandInput, TypedCommand } from '../commands/index.js';
import type { CommandHandler, ExecuteOutcome, IdempotencyEngine } from '../engine/index.js';
import { parseIdempotencyKeyHeader } from '../header/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import type { StoredResponse } from '../key-log/index.js';
import { idempotencyProblems, Problem } from '../problems/index.js';
import type { IdempotencyProblemType, ProblemAnswer } from '../problems/index.js';

export interface IdempotencyPluginOptions {
  readonly engine: IdempotencyEngine;
  /** Every command's handler by command type (the completer resumes keys from the same map). */
  readonly handlers: CommandHandlers;
  /**
   * The caller's tenant and actor, from the app's authentication. Default: `request.principal`
   * (`{ tenantId, actorId }`), as the app's auth plugin decorates it. Undefined → 401.
   */
  readonly getScope?: (request: FastifyRequest) => IdempotencyScope | undefined;
  /**
   * The problems the plugin answers with: `idempotencyProblems`, or an app's catalogue extended from it (its own
   * URIs and words, one catalogue for every problem of the app). Default `idempotencyProblems`.
   */
  readonly problems?: IdempotencyProblemCatalog;
  /**
   * Throw each problem (a `Problem` of `problems`) and each failed command's error to the app's root error handler
   * instead of answering it here, so the app answers every error in one place. Default false.
   */
  readonly throwProblems?: boolean;
  /** Called with errors the client only sees as a 500/503 (to log them once). */
  readonly onError?: (error: unknown, request: FastifyRequest) => void;
  /**
   * The problem a store error of an `unavailable` outcome stands for (a full disk, a statement timeout: a 503 of the
   * app's catalogue with its own type and `Retry-After`); `service-unavailable` when it gives none. Never stored.
   */
  readonly problemOfStoreError?: (error: unknown) => Problem | undefined;
  /**
   * Called with every engine outcome before its answer is sent (awaited), e.g. to label metrics and logs or to add
   * headers from the outcome (a replay's `position`). Not called when the request is refused before the engine runs.
   */
  readonly onOutcome?: (request: FastifyRequest, outcome: ExecuteOutcome) => void | Promise<void>;
}

/** What the plugin needs of a problem catalogue: `idempotencyProblems` or one extended from it. */
export interface IdempotencyProblemCatalog {
  has(type: string): boolean;
  answer(problem: Problem): ProblemAnswer;
}

/** Per-route settings of a command. */
export interface CommandRouteSettings {
  /**
   * The command the route runs, or the commands it may run (cash or card payments on one route): the first whose
   * `fromInput` builds a command from the validated params and body.
   */
  readonly command: CommandDefinition<unknown> | readonly CommandDefinition<unknown>[];
  /** Key retention for this route (seconds); longer for offline-capable routes. */
  readonly retentionSeconds?: number;
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

const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * The command a route's validated input stands for, as the engine runs it and the key log stores it: built by the
 * first candidate whose definition accepts the input (cash and card payments share a route; their schemas tell them
 * apart). Undefined when none does.
 *
 * @example
 * commandFromInput([{ definition: payInvoiceByCash }, { definition: payInvoiceByCard }], { params, body })?.command;
 */
export const commandFromInput = <Candidate extends { readonly definition: CommandDefinition<unknown> }>(
  candidates: readonly Candidate[],
  input: CommandInput,
): { readonly candidate: Candidate; readonly command: TypedCommand } | undefined => {
  for (const candidate of candidates) {
    const { type, version, secretFields, fromInput } = candidate.definition;
    const data = fromInput(input);
    if (data !== undefined) {
      return {
        candidate,
        command: { type, version, data, ...(secretFields?.length ? { secretFields } : {}) },
      };
    }
  }
  return undefined;
};

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
  const problems = options.problems ?? idempotencyProblems;
  const missing = idempotencyProblems
    .entries()
    .map(([type]) => type)
    .filter((type) => !problems.has(type));
  if (missing.length > 0) throw new Error(`the problem catalogue lacks ${missing.join(', ')}`);

  const refuse = (reply: FastifyReply, problem: Problem): FastifyReply => {
    if (options.throwProblems) throw problem;
    const { status, headers, body } = problems.answer(problem);
    reply.removeHeader(REPLAYED_HEADER);
    return reply.code(status).headers(headers).type('application/problem+json').send(JSON.stringify(body));
  };

  const fail = (request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply => {
    if (options.throwProblems) {
      throw error instanceof Error ? error : new Error('the command failed', { cause: error });
    }
    options.onError?.(error, request);
    return refuse(reply, new Problem<IdempotencyProblemType>('internal'));
  };

  const unavailable = (
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: Extract<ExecuteOutcome, { kind: 'unavailable' }>,
  ): FastifyReply => {
    const { error, reason, retryAfterSeconds } = outcome;
    // A handler's own problem (its gateway is down) keeps its type, with the engine's Retry-After.
    if (error instanceof Problem && problems.has(error.type)) {
      return refuse(reply, new Problem(error.type, { ...error.options, retryAfterSeconds }));
    }
    if (error !== undefined) options.onError?.(error, request);
    const mapped = error === undefined ? undefined : options.problemOfStoreError?.(error);
    if (mapped !== undefined && problems.has(mapped.type)) return refuse(reply, mapped);
    return refuse(
      reply,
      new Problem<IdempotencyProblemType>('service-unavailable', {
        detail: `retry with the same key (${reason ?? 'store-error'})`,
        retryAfterSeconds,
      }),
    );
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
        return refuse(
          reply,
          new Problem<IdempotencyProblemType>('idempotency-key-in-flight', {
            extensions: { retryAfterSeconds: outcome.retryAfterSeconds },
            retryAfterSeconds: outcome.retryAfterSeconds,
          }),
        );
      case 'reused':
        return refuse(
          reply,
          new Problem<IdempotencyProblemType>('idempotency-key-reused', {
            detail: `the key was first used for ${outcome.original.method} ${outcome.original.route} with another body`,
          }),
        );
      case 'released':
        if (outcome.response !== undefined) return sendStored(reply, outcome.response, false);
        return fail(request, reply, outcome.error);
      case 'unavailable':
        return unavailable(request, reply, outcome);
      default: {
        const _exhaustive: never = outcome;
        return _exhaustive;
      }
    }
  };

  const command = (settings: CommandRouteSettings): RouteHandlerMethod => {
    const definitions: readonly CommandDefinition<unknown>[] = Array.isArray(settings.command)
      ? settings.command
      : [settings.command];
    const routeCommands: readonly { definition: CommandDefinition<unknown>; handler: CommandHandler }[] =
      definitions.map((definition) => ({ definition, handler: options.handlers.handlerOf(definition) }));
    return async function idempotentCommand(request, reply) {
      const header = parseIdempotencyKeyHeader(idempotencyKeyLines(request));
      if (!header.ok) {
        return refuse(
          reply,
          new Problem<IdempotencyProblemType>(header.problem, {
            detail: `Idempotency-Key: ${header.reason}`,
            extensions: { reason: header.reason },
          }),
        );
      }
      const scope = getScope(request);
      if (scope === undefined) return refuse(reply, new Problem<IdempotencyProblemType>('unauthorized'));
      // Fastify's params object has no prototype; the fingerprint wants a plain JSON object.
      const params: Record<string, unknown> =
        typeof request.params === 'object' && request.params !== null
          ? Object.fromEntries(Object.entries(request.params))
          : {};
      const body = request.body ?? null;
      const chosen = commandFromInput(routeCommands, { params, body });
      if (chosen === undefined) {
        const error = new Error(
          `no command of ${request.routeOptions.url ?? request.url} accepts this input`,
        );
        return fail(request, reply, error);
      }
      const outcome = await engine.execute({
        scope,
        key: header.key,
        request: { method: request.method, route: request.routeOptions.url ?? request.url, params, body },
        command: chosen.command,
        handler: chosen.candidate.handler,
        ...(settings.retentionSeconds === undefined ? {} : { retentionSeconds: settings.retentionSeconds }),
      });
      return sendOutcome(request, reply, outcome);
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
