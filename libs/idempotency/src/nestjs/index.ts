export { CommandRouteBindings, IDEMPOTENT_COMMAND_ROUTE } from './command-route-bindings.js';
export type { BoundCommandRoute } from './command-route-bindings.js';
export { IdempotentCommand } from './idempotent-command.decorator.js';
export { IdempotentCommandInterceptor } from './idempotent-command.interceptor.js';
export { ONCE_IDEMPOTENCY_OPTIONS } from './idempotency-options.js';
export type { OnceIdempotencyAsyncOptions, OnceIdempotencyOptions } from './idempotency-options.js';
export { OnceIdempotencyModule } from './once-idempotency.module.js';
export type { CommandRouteSettings, IdempotencyProblemCatalog } from '../http/index.js';
