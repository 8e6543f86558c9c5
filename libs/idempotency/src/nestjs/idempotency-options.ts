import type { ExecutionContext, FactoryProvider, ModuleMetadata } from '@nestjs/common';
import type { CommandHandlers } from '../commands/index.js';
import type { ExecuteOutcome, IdempotencyEngine } from '../engine/index.js';
import type { IdempotencyProblemCatalog } from '../http/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import type { Problem } from '../problems/index.js';

/** How to run command routes in a NestJS app: what `OnceIdempotencyModule.forRoot` takes. */
export interface OnceIdempotencyOptions {
  readonly engine: IdempotencyEngine;
  /** Every command's handler by command type (the completer resumes keys from the same map). */
  readonly handlers: CommandHandlers;
  /**
   * The caller's tenant and actor, from the app's authentication. Default: `request.principal`
   * (`{ tenantId, actorId }`) as the app's guard sets it. Undefined → 401.
   */
  readonly getScope?: (context: ExecutionContext) => IdempotencyScope | undefined;
  /** The problems to answer with: `idempotencyProblems` (the default) or a catalogue extended from it. */
  readonly problems?: IdempotencyProblemCatalog;
  /** Called with errors the client only sees as a 500/503 (to log them once). Default: Nest's `Logger`. */
  readonly onError?: (error: unknown, context: ExecutionContext) => void;
  /** The problem a store error stands for (a full disk, a timeout); `service-unavailable` when none. */
  readonly problemOfStoreError?: (error: unknown) => Problem | undefined;
  /** Called with every engine outcome before its answer is sent (awaited), e.g. for metrics or logs. */
  readonly onOutcome?: (context: ExecutionContext, outcome: ExecuteOutcome) => void | Promise<void>;
}

/** The options built by a factory from other providers (a pool, a config service): `forRootAsync`. */
export interface OnceIdempotencyAsyncOptions {
  /** Modules whose providers the factory needs. */
  readonly imports?: ModuleMetadata['imports'];
  /** The providers handed to the factory, in order. */
  readonly inject?: FactoryProvider['inject'];
  readonly useFactory: FactoryProvider<
    OnceIdempotencyOptions | Promise<OnceIdempotencyOptions>
  >['useFactory'];
}

/** The injection token of the module's options. */
export const ONCE_IDEMPOTENCY_OPTIONS = Symbol('OnceIdempotencyOptions');
