export { idempotencyProblems } from './idempotency-problems.js';
export type { IdempotencyProblemType } from './idempotency-problems.js';
export { Problem } from './problem.js';
export type { ProblemOptions } from './problem.js';
export { ProblemCatalog } from './problem-catalog.js';
export type {
  ProblemAnswer,
  ProblemCatalogSettings,
  ProblemDocument,
  ProblemExtension,
  ProblemText,
  ProblemType,
  ProblemTypeOf,
} from './problem-catalog.js';
