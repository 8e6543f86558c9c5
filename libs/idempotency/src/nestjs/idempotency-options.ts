import type { ExecutionContext, FactoryProvider, ModuleMetadata } from '@nestjs/common';
import type { CommandAdapterOptions } from '../http/index.js';

/** How to run command routes in a NestJS app: what `OnceIdempotencyModule.forRoot` takes. */
export interface OnceIdempotencyOptions extends Omit<CommandAdapterOptions<ExecutionContext>, 'onError'> {
  /** Called with errors the client only sees as a 500/503 (to log them once). Default: Nest's `Logger`. */
  readonly onError?: (error: unknown, context: ExecutionContext) => void;
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
