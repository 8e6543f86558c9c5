export { checkHistory, tallyEffects } from './check-history.js';
export type { EffectTally } from './check-history.js';
export { effectRules } from './effect-rules.js';
export { invariantNames } from './verdict.js';
export type { InvariantName, Verdict } from './verdict.js';
export type {
  GatewayCharge,
  InvoiceReading,
  LoggedEvent,
  OrderReading,
  ReadModelDifference,
  SystemFacts,
} from './system-facts.js';
export { keysInFlightOverHttp, readModelsOverHttp } from './http-facts.js';
export { readTenantEventsFromStore } from './event-store-facts.js';
export {
  compareReadModelsWithFold,
  readGatewayCharges,
  readKeysInFlight,
  readTenantEvents,
  waitForProjections,
} from './postgres-facts.js';
