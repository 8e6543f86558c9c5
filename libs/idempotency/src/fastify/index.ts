export { idempotencyFastifyPlugin, commandRoute } from './idempotency-plugin.js';
export type {
  CommandRouteOptions,
  CommandRouteSettings,
  IdempotencyDecorator,
  IdempotencyPluginOptions,
  IdempotencyProblem,
} from './idempotency-plugin.js';
export { idempotencyProblems } from './idempotency-problems.js';
export type { IdempotencyProblemType, ProblemDocument } from './idempotency-problems.js';
