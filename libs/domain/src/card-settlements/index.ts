export type {
  CardSettlementCommand,
  ChargedAmount,
  CheckGatewayCharge,
  RecordUnknownAttempt,
  ResolveByOperator,
  SettleFromGateway,
  SettlementOutcome,
  SettlementRetryPolicy,
  StartCardSettlement,
} from './card-settlement.commands.js';
export {
  chargeMismatchReason,
  decider as cardSettlementDecider,
  retryDelayMs as settlementRetryDelayMs,
} from './card-settlement.decider.js';
export type { CardSettlementState } from './card-settlement.decider.js';
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
  GatewayChargeMismatched,
} from './card-settlement.events.js';
