export { checkHistory } from './check-history.js';
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
