export {
  CardSettlementAlreadySettled,
  CardSettlementNotAwaitingOperator,
  CardSettlementNotFound,
} from './card-settlement.errors.js';
export type {
  CardSettlementAttemptFailed,
  CardSettlementEvent,
  CardSettlementNeedsAttention,
  CardSettlementSettled,
  CardSettlementStarted,
  ChargedAmount,
  GatewayChargeMismatched,
  SettlementOutcome,
  SettlementRetryPolicy,
} from './card-settlement.events.js';
