export { createProcessFaultHook, parseProcessFault, processFaultPoints } from './process-faults.js';
export type { ProcessFaultHook, ProcessFaultPoint, ProcessFaultSpec } from './process-faults.js';
