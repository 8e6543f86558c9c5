export { commandFromInput, commandRoute, idempotencyFastifyPlugin } from './idempotency-plugin.js';
export type {
  CommandRouteOptions,
  CommandRouteSettings,
  IdempotencyDecorator,
  IdempotencyPluginOptions,
  IdempotencyProblemCatalog,
} from './idempotency-plugin.js';
export * from '../problems/index.js';
