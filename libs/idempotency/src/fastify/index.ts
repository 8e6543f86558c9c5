export { commandFromInput, commandRoute, idempotencyFastifyPlugin } from './idempotency-plugin.js';
export type {
  CommandRouteOptions,
  CommandRouteSettings,
  IdempotencyDecorator,
  IdempotencyPluginOptions,
  IdempotencyProblemCatalog,
} from './idempotency-plugin.js';
export { idempotencyProblems, Problem, ProblemCatalog } from '../problems/index.js';
export type {
  IdempotencyProblemType,
  ProblemAnswer,
  ProblemCatalogSettings,
  ProblemDocument,
  ProblemExtension,
  ProblemOptions,
  ProblemText,
  ProblemType,
  ProblemTypeOf,
} from '../problems/index.js';
