import type { Request, RequestHandler, Response } from 'express';
import { idempotencyKeyLines, routeCommands, runKeyedCommand, toHttpAnswer } from '../http/index.js';
import type {
  AnswerSettings,
  CommandAdapterOptions,
  CommandAnswer,
  CommandRouteSettings,
} from '../http/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import { idempotencyProblems } from '../problems/index.js';

/** How to run command routes in an Express 5 app. */
export type IdempotencyExpressOptions = CommandAdapterOptions<Request>;

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
