export type {
  CardSettlementCommand,
  CheckGatewayCharge,
  RecordUnknownAttempt,
  ResolveByOperator,
  SettleFromGateway,
  StartCardSettlement,
} from './card-settlement.commands.js';
export { decider as cardSettlementDecider } from './card-settlement.decider.js';
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
  ChargedAmount,
  GatewayChargeMismatched,
  SettlementOutcome,
  SettlementRetryPolicy,
} from './card-settlement.events.js';
