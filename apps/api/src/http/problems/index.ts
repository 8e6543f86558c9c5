export { storeFailureProblem } from './store-failure-problems.js';
export { documentProblemResponses, problemContent, problemSchemaName } from './openapi-problem.js';
