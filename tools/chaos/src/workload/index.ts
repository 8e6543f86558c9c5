export { recordingFetch } from './recording-fetch.js';
export { createWorkload } from './workload.js';
export type { Workload, WorkloadOptions } from './workload.js';
