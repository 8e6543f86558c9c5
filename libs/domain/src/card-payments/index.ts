export {
  chargeMismatchReason,
  chargeOnRecord,
  retryDelayMs as settlementRetryDelayMs,
  workflow as cardPaymentWorkflow,
} from './card-payment.workflow.js';
export type { CardPaymentEvent, CardPaymentOutput, CardPaymentState } from './card-payment.workflow.js';
export type {
  AnswerNeedsAttention,
  AnswerPayment,
  CardPaymentInput,
  CardPaymentIntent,
  ChargeCard,
  ContinueCardPayment,
  GatewayReply,
  OperatorResolution,
  PayByCard,
  ReceiveGatewayCharge,
  RecordGatewayReply,
  ReportedCharge,
  ResolveCardPayment,
  RetryLater,
} from './card-payment.inputs.js';
