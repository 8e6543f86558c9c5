export { chargeRequestSchema, chargeSchema, decideCharge } from './charge.js';
export type { Charge, ChargeRequest } from './charge.js';
export { createInMemoryChargeLedger } from './charge-ledger.js';
export type { ChargeLedger, ChargeOutcome } from './charge-ledger.js';
export { chargesRoutes } from './charges.routes.js';
export { chargesByReferenceStream, createEventSourcedChargeLedger } from './event-sourced-charge-ledger.js';
