export { faultHeader, gatewayFaultSchema, parseFaultHeader } from './fault.js';
export type { FaultTarget, GatewayFault } from './fault.js';
export { createFaultPlan } from './fault-plan.js';
export type { ArmedFault, FaultPlan } from './fault-plan.js';
export { faultsRoutes } from './faults.routes.js';
export { faultControlsAllowed, faultTokenHeader, refuseFaultControls } from './fault-access.js';
export type { FaultAccess } from './fault-access.js';
