import { Module } from '@nestjs/common';
import type { DynamicModule, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CommandRouteBindings } from './command-route-bindings.js';
import { ONCE_IDEMPOTENCY_OPTIONS } from './idempotency-options.js';
import type { OnceIdempotencyAsyncOptions, OnceIdempotencyOptions } from './idempotency-options.js';

const withOptions = (
  options: Provider,
  imports: NonNullable<OnceIdempotencyAsyncOptions['imports']> = [],
): DynamicModule => ({
  module: OnceIdempotencyModule,
  global: true,
  imports: [DiscoveryModule, ...imports],
  providers: [options, CommandRouteBindings],
  // The interceptor each `@IdempotentCommand` adds is built in its controller's module, from these.
  exports: [ONCE_IDEMPOTENCY_OPTIONS, CommandRouteBindings],
});

/**
 * The engine and handlers every `@IdempotentCommand` route of the app runs with: import it once, in the root module
 * (it is global).
 *
 * @example
 * \@Module({ imports: [OnceIdempotencyModule.forRoot({ engine, handlers })], controllers: [PointsController] })
 * class AppModule {}
 */
@Module({})
export class OnceIdempotencyModule {
  /** The module over options known at start. */
  static forRoot(options: OnceIdempotencyOptions): DynamicModule {
    return withOptions({ provide: ONCE_IDEMPOTENCY_OPTIONS, useValue: options });
  }

  /** The module over options a factory builds from other providers (the engine over the app's pool). */
  static forRootAsync(options: OnceIdempotencyAsyncOptions): DynamicModule {
    return withOptions(
      { provide: ONCE_IDEMPOTENCY_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
      options.imports,
    );
  }
}
