import type { Problem, ProblemAnswer } from '../problems/index.js';

/** What an adapter needs of a problem catalogue: `idempotencyProblems` or one extended from it. */
export interface IdempotencyProblemCatalog {
  has(type: string): boolean;
  answer(problem: Problem): ProblemAnswer;
}
