export { appendDomainWorkload, generateDomainWorkload } from './domain-workload.js';
export type { DomainWorkloadOptions, WorkloadAppend } from './domain-workload.js';
