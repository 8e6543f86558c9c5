import { Inject, Injectable } from '@nestjs/common';
import type { ExecutionContext, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { routeCommands } from '../http/index.js';
import type { CommandRouteSettings, RouteCommand } from '../http/index.js';
import { ONCE_IDEMPOTENCY_OPTIONS } from './idempotency-options.js';
import type { OnceIdempotencyOptions } from './idempotency-options.js';

/** The metadata key under which `@IdempotentCommand` records a controller method's command route. */
export const IDEMPOTENT_COMMAND_ROUTE = 'once:idempotent-command-route';

type RouteMethod = ReturnType<ExecutionContext['getHandler']>;

/** A command route's settings with the handlers of its commands bound. */
export interface BoundCommandRoute {
  readonly settings: CommandRouteSettings;
  readonly commands: readonly RouteCommand[];
}

/**
 * The command routes of the app's controllers, each with its commands' handlers bound once, when the module starts
 * (a command with no bound handler throws then, not on a request), as the Fastify and Express adapters bind theirs
 * when a route is declared.
 */
@Injectable()
export class CommandRouteBindings implements OnModuleInit {
  readonly #routes = new Map<RouteMethod, BoundCommandRoute>();

  constructor(
    @Inject(ONCE_IDEMPOTENCY_OPTIONS) private readonly options: OnceIdempotencyOptions,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const { instance } of this.discovery.getControllers()) {
      // A request-scoped controller has no instance yet: its routes are bound on their first request.
      if (typeof instance !== 'object' || instance === null) continue;
      const prototype: object | null = Object.getPrototypeOf(instance) as object | null;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const method: unknown = Reflect.get(prototype ?? {}, name);
        if (typeof method === 'function') this.routeOf(method as RouteMethod);
      }
    }
  }

  /** The command route of a controller method, or undefined when `@IdempotentCommand` is not on it. */
  routeOf(method: RouteMethod): BoundCommandRoute | undefined {
    const known = this.#routes.get(method);
    if (known !== undefined) return known;
    const settings = this.reflector.get<CommandRouteSettings | undefined>(IDEMPOTENT_COMMAND_ROUTE, method);
    if (settings === undefined) return undefined;
    const route = { settings, commands: routeCommands(settings, this.options.handlers) };
    this.#routes.set(method, route);
    return route;
  }
}
