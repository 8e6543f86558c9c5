import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { from, lastValueFrom } from 'rxjs';
import type { Observable } from 'rxjs';
import { idempotencyKeyLines, runKeyedCommand, toHttpAnswer } from '../http/index.js';
import type { AnswerSettings, CommandAnswer, HttpAnswer, IdempotencyProblemCatalog } from '../http/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import { idempotencyProblems } from '../problems/index.js';
import { CommandRouteBindings } from './command-route-bindings.js';
import { ONCE_IDEMPOTENCY_OPTIONS } from './idempotency-options.js';
import type { OnceIdempotencyOptions } from './idempotency-options.js';

/** What the interceptor reads of a request on `@nestjs/platform-express` (an Express 5 request). */
interface CommandHttpRequest {
  readonly method: string;
  readonly rawHeaders: readonly string[];
  /** The request's headers as Node parsed them: the trace context (`traceparent`) is read from them. */
  readonly headers: Readonly<Record<string, unknown>>;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
  readonly route?: { readonly path?: unknown };
  readonly baseUrl?: string;
  readonly originalUrl?: string;
  readonly url: string;
}

const principalScope = (context: ExecutionContext): IdempotencyScope | undefined => {
  const principal: unknown = Reflect.get(context.switchToHttp().getRequest<object>(), 'principal');
  if (typeof principal !== 'object' || principal === null) return undefined;
  const tenantId: unknown = Reflect.get(principal, 'tenantId');
  const actorId: unknown = Reflect.get(principal, 'actorId');
  return typeof tenantId === 'string' && typeof actorId === 'string' ? { tenantId, actorId } : undefined;
};

/** The route template the request matched (`/counters/:id/increments`), global prefix included. */
const routeTemplate = (request: CommandHttpRequest): string => {
  const path = request.route?.path;
  return typeof path === 'string' ? `${request.baseUrl ?? ''}${path}` : (request.originalUrl ?? request.url);
};

/** Statuses whose response has no body (the Fetch standard refuses one). */
const bodylessStatuses = new Set([101, 103, 204, 205, 304]);

/** The answer as a web `Response`: Nest sends its status, headers and bytes as they are, over any `@HttpCode`. */
const webResponse = ({ status, headers, body }: HttpAnswer): Response =>
  bodylessStatuses.has(status)
    ? new Response(null, { status, headers })
    : new Response(body, {
        status,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body, 'utf8')) },
      });

/**
 * Runs the command of a controller method marked `@IdempotentCommand` exactly once per `Idempotency-Key`: the same
 * engine, key handling and answers as the Fastify plugin and the Express adapter (replays byte for byte with
 * `Idempotent-Replayed: true`; 400/401/409/422/500/503 as `application/problem+json`). The method's parameters and
 * their pipes validate the request first; the answer is the command's, whatever the method returns.
 */
@Injectable()
export class IdempotentCommandInterceptor implements NestInterceptor {
  readonly #problems: IdempotencyProblemCatalog;
  readonly #settings: AnswerSettings;
  readonly #logger = new Logger('OnceIdempotency');

  constructor(
    @Inject(ONCE_IDEMPOTENCY_OPTIONS) private readonly options: OnceIdempotencyOptions,
    @Inject(CommandRouteBindings) private readonly routes: CommandRouteBindings,
  ) {
    const problems = options.problems ?? idempotencyProblems;
    this.#problems = problems;
    this.#settings = {
      knowsProblem: (type) => problems.has(type),
      ...(options.problemOfStoreError ? { problemOfStoreError: options.problemOfStoreError } : {}),
    };
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<Response> {
    return from(this.#answer(context, next));
  }

  async #answer(context: ExecutionContext, next: CallHandler): Promise<Response> {
    const route = this.routes.routeOf(context.getHandler());
    if (context.getType() !== 'http' || route === undefined) {
      throw new Error(
        `${context.getClass().name}.${context.getHandler().name} is no @IdempotentCommand route`,
      );
    }
    // The method runs for its parameters' pipes (validation, as a Fastify schema runs before the command).
    await lastValueFrom(next.handle(), { defaultValue: undefined });
    const request = context.switchToHttp().getRequest<CommandHttpRequest>();
    const { answer, outcome } = await runKeyedCommand(
      this.options.engine,
      route.commands,
      {
        idempotencyKey: idempotencyKeyLines(request.rawHeaders),
        scope: (this.options.getScope ?? principalScope)(context),
        method: request.method,
        route: routeTemplate(request),
        params: request.params ?? {},
        body: request.body,
        traceHeaders: request.headers,
        ...(route.settings.retentionSeconds === undefined
          ? {}
          : { retentionSeconds: route.settings.retentionSeconds }),
      },
      this.#settings,
    );
    if (outcome !== undefined) await this.options.onOutcome?.(context, outcome);
    return webResponse(toHttpAnswer(this.#logged(context, answer), this.#problems));
  }

  #logged(context: ExecutionContext, answer: CommandAnswer): CommandAnswer {
    const onError = this.options.onError ?? ((error: unknown) => this.#logger.error(error));
    if (answer.kind === 'failed') onError(answer.defect, context);
    if (answer.kind === 'problem' && answer.cause !== undefined) onError(answer.cause, context);
    return answer;
  }
}
