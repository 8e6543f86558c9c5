export { storeFailureProblem } from './store-failure-problems.js';
export { problemContent } from './openapi-problem.js';
