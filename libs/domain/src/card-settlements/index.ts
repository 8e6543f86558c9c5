export type {
  CardSettlementCommand,
  RecordUnknownAttempt,
  ResolveByOperator,
  SettleFromGateway,
  SettlementOutcome,
  SettlementRetryPolicy,
  StartCardSettlement,
} from './card-settlement.commands.js';
export {
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
} from './card-settlement.events.js';
