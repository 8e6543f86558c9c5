export {
  COUNTER_ROUTE,
  chargedIncrementHandler,
  countIncrementsByKey,
  counterStream,
  createFakeGateway,
  incrementCounterHandler,
  incrementRequest,
} from './counter-aggregate.js';
export type { FakeGateway } from './counter-aggregate.js';
export { createFaultInjector, createManualClock, InjectedCrash } from './fault-injector.js';
export type { FaultInjector, ManualClock } from './fault-injector.js';
