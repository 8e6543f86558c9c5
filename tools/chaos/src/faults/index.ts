export { startFaultProxy } from './fault-proxy.js';
export type { FaultProxy, ProxyFault, ProxyFaultRates } from './fault-proxy.js';
export {
  armGatewayFault,
  clusterFaultKinds,
  processFaultKinds,
  startProcessFaults,
} from './process-faults.js';
export type { ProcessFaultKind, ProcessFaultOptions, ProcessFaultSchedule } from './process-faults.js';
