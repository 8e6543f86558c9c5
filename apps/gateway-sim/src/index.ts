export { buildGatewaySim } from './gateway-sim.js';
export type { GatewaySim, GatewaySimDeps } from './gateway-sim.js';
export { startGatewaySim } from './start-gateway-sim.js';
export type { RunningGatewaySim } from './start-gateway-sim.js';
export {
  chargeRequestSchema,
  chargeSchema,
  chargesByReferenceStream,
  createEventSourcedChargeLedger,
  createInMemoryChargeLedger,
  decideCharge,
} from './charges/index.js';
export type { Charge, ChargeLedger, ChargeOutcome, ChargeRequest } from './charges/index.js';
export { createFaultPlan, gatewayFaultSchema, parseFaultHeader } from './faults/index.js';
export type { ArmedFault, FaultPlan, FaultTarget, GatewayFault } from './faults/index.js';
export type { GatewayEvent } from './webhooks/index.js';
