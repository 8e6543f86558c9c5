import type { Request, RequestHandler, Response } from 'express';
import type { CommandHandlers } from '../commands/index.js';
import type { ExecuteOutcome, IdempotencyEngine } from '../engine/index.js';
import { idempotencyKeyLines, routeCommands, runKeyedCommand, toHttpAnswer } from '../http/index.js';
import type {
  AnswerSettings,
  CommandAnswer,
  CommandRouteSettings,
  IdempotencyProblemCatalog,
} from '../http/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import type { Problem } from '../problems/index.js';
import { idempotencyProblems } from '../problems/index.js';

/** How to run command routes in an Express 5 app. */
export interface IdempotencyExpressOptions {
  readonly engine: IdempotencyEngine;
  /** Every command's handler by command type (the completer resumes keys from the same map). */
  readonly handlers: CommandHandlers;
  /**
   * The caller's tenant and actor, from the app's authentication. Default: `req.principal` (`{ tenantId, actorId }`)
   * as an authentication middleware sets it. Undefined → 401.
   */
  readonly getScope?: (req: Request) => IdempotencyScope | undefined;
  /** The problems to answer with: `idempotencyProblems` (the default) or a catalogue extended from it. */
  readonly problems?: IdempotencyProblemCatalog;
  /** Called with errors the client only sees as a 500/503 (to log them once). */
  readonly onError?: (error: unknown, req: Request) => void;
  /** The problem a store error stands for (a full disk, a timeout); `service-unavailable` when none. */
  readonly problemOfStoreError?: (error: unknown) => Problem | undefined;
  /** Called with every engine outcome before its answer is sent (awaited), e.g. for metrics or extra headers. */
  readonly onOutcome?: (req: Request, outcome: ExecuteOutcome) => void | Promise<void>;
}

/** Builds route handlers that run commands under their `Idempotency-Key`. */
export interface IdempotencyExpress {
  /**
   * The route handler of a command route: put it after `express.json()` and the app's authentication. The
   * handlers of the route's commands are bound now, once (an unbound command throws here, at start).
   */
  command(settings: CommandRouteSettings): RequestHandler;
}

const principalScope = (req: Request): IdempotencyScope | undefined => {
  const principal: unknown = Reflect.get(req, 'principal');
  if (typeof principal !== 'object' || principal === null) return undefined;
  const tenantId: unknown = Reflect.get(principal, 'tenantId');
  const actorId: unknown = Reflect.get(principal, 'actorId');
  return typeof tenantId === 'string' && typeof actorId === 'string' ? { tenantId, actorId } : undefined;
};

/** The route template the request matched (`/counters/:id/increments`), under its router's mount path. */
const routeTemplate = (req: Request): string => {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : req.originalUrl;
};

const write = (res: Response, answer: ReturnType<typeof toHttpAnswer>): void => {
  res.status(answer.status).set(answer.headers).send(Buffer.from(answer.body, 'utf8'));
};

/**
 * Runs command routes in an Express 5 app exactly once per `Idempotency-Key`: the same engine, key handling and
 * answers as the Fastify plugin (replays byte for byte with `Idempotent-Replayed: true`; 400/401/409/422/500/503 as
 * `application/problem+json`).
 *
 * @example
 * const idempotency = createIdempotencyExpress({ engine, handlers });
 * app.post('/counters/:id/increments', express.json(), authenticate, idempotency.command({ command: increment }));
 */
export const createIdempotencyExpress = (options: IdempotencyExpressOptions): IdempotencyExpress => {
  const problems = options.problems ?? idempotencyProblems;
  const getScope = options.getScope ?? principalScope;
  const settings: AnswerSettings = {
    knowsProblem: (type) => problems.has(type),
    ...(options.problemOfStoreError ? { problemOfStoreError: options.problemOfStoreError } : {}),
  };
  const logged = (req: Request, answer: CommandAnswer): CommandAnswer => {
    if (answer.kind === 'failed') options.onError?.(answer.defect, req);
    if (answer.kind === 'problem' && answer.cause !== undefined) options.onError?.(answer.cause, req);
    return answer;
  };
  return {
    command: (route) => {
      const commands = routeCommands(route, options.handlers);
      return async (req, res, next) => {
        try {
          const { answer, outcome } = await runKeyedCommand(
            options.engine,
            commands,
            {
              idempotencyKey: idempotencyKeyLines(req.rawHeaders),
              scope: getScope(req),
              method: req.method,
              route: routeTemplate(req),
              params: req.params,
              body: req.body as unknown,
              ...(route.retentionSeconds === undefined ? {} : { retentionSeconds: route.retentionSeconds }),
              traceHeaders: req.headers,
            },
            settings,
          );
          if (outcome !== undefined) await options.onOutcome?.(req, outcome);
          write(res, toHttpAnswer(logged(req, answer), problems));
        } catch (error) {
          next(error);
        }
      };
    },
  };
};
