export { idempotencyFastifyPlugin, commandRoute } from './idempotency-plugin.js';
export type {
  CommandRouteOptions,
  CommandRouteSettings,
  IdempotencyDecorator,
  IdempotencyPluginOptions,
  IdempotencyProblemCatalog,
} from './idempotency-plugin.js';
