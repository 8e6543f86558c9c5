export { commandRoute, idempotencyFastifyPlugin } from './idempotency-plugin.js';
export type {
  CommandRouteOptions,
  IdempotencyDecorator,
  IdempotencyPluginOptions,
} from './idempotency-plugin.js';
export { commandFromInput } from '../http/index.js';
export type { CommandRouteSettings, IdempotencyProblemCatalog } from '../http/index.js';
export * from '../problems/index.js';
