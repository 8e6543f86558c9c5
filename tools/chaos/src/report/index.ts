export { renderHtmlReport } from './html-report.js';
export { rewriteReport } from './rewrite-report.js';
export { summariseRun } from './run-summary.js';
export type { RunSummary } from './run-summary.js';
