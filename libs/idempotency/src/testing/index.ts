export {
  COUNTER_ROUTE,
  chargedIncrementHandler,
  countIncrementsByKey,
  counterStream,
  createFakeGateway,
  incrementCounter,
  incrementCounterHandler,
  incrementInput,
  incrementRequest,
} from './counter-aggregate.js';
export type { FakeGateway, IncrementCounter } from './counter-aggregate.js';
export { createFaultInjector, createManualClock, InjectedCrash } from './fault-injector.js';
export type { FaultInjector, ManualClock } from './fault-injector.js';
export { AcknowledgementLost, losingAcknowledgement } from './lost-acknowledgement.js';
export type { LosingAcknowledgement } from './lost-acknowledgement.js';
