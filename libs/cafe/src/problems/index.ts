export { domainProblem, HttpProblem, problemOfError, problemResponse } from './http-problem.js';
export { problemCatalog } from './problem-catalog.js';
export type { ApiProblemCatalog, ApiProblemType } from './problem-catalog.js';
