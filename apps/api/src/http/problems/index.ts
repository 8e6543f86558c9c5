export { storeFailureProblem } from './store-failure-problems.js';
