import type { CommandHandlers } from '../commands/index.js';
import type { ExecuteOutcome, IdempotencyEngine } from '../engine/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import type { Problem } from '../problems/index.js';
import type { IdempotencyProblemCatalog } from './problem-catalog-port.js';

/**
 * What every HTTP adapter takes (Fastify, Express, NestJS), over the framework's own request (`Request`): each
 * adapter names its default scope and its extra settings.
 */
export interface CommandAdapterOptions<Request> {
  readonly engine: IdempotencyEngine;
  /** Every command's handler by command type (the completer resumes keys from the same map). */
  readonly handlers: CommandHandlers;
  /**
   * The caller's tenant and actor, from the app's authentication. Default: the request's `principal`
   * (`{ tenantId, actorId }`), as the app's authentication sets it. Undefined → 401.
   */
  readonly getScope?: (request: Request) => IdempotencyScope | undefined;
  /**
   * The problems to answer with: `idempotencyProblems`, or an app's catalogue extended from it (its own URIs and
   * words, one catalogue for every problem of the app). Default `idempotencyProblems`.
   */
  readonly problems?: IdempotencyProblemCatalog;
  /** Called with errors the client only sees as a 500/503 (to log them once). */
  readonly onError?: (error: unknown, request: Request) => void;
  /**
   * The problem a store error of an `unavailable` outcome stands for (a full disk, a statement timeout: a 503 of the
   * app's catalogue with its own type and `Retry-After`); `service-unavailable` when it gives none. Never stored.
   */
  readonly problemOfStoreError?: (error: unknown) => Problem | undefined;
  /**
   * Called with every engine outcome before its answer is sent (awaited), e.g. to label metrics and logs or to add
   * headers from the outcome (a replay's `position`). Not called when the request is refused before the engine runs.
   */
  readonly onOutcome?: (request: Request, outcome: ExecuteOutcome) => void | Promise<void>;
}
