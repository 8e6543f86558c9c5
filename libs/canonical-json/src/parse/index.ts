export { parseJson } from './parse-json.js';
export type { ParseJsonResult } from './parse-json.js';
