export { createIdempotencyEngine } from './idempotency-engine.js';
export type { ExecuteInput, IdempotencyEngine, IdempotencyEngineOptions } from './idempotency-engine.js';
export { accept, defineDecideHandler, definePhasedHandler, reject } from './command-handler.js';
export type {
  CommandContext,
  CommandDecision,
  CommandHandler,
  CommandIds,
  CommandRequest,
  DecideCommandHandler,
  EffectDecision,
  EffectOutcome,
  EffectSpec,
  HandlerResponse,
  NewEvent,
  PhasedCommandContext,
  PhasedCommandHandler,
  StreamSnapshot,
  StreamWrite,
} from './command-handler.js';
export type { EngineProtocol, ExecuteOutcome, ExecuteOutcomeKind } from './execute-outcome.js';
export { faultPoints } from './fault-points.js';
export type { FaultContext, FaultHook, FaultPoint } from './fault-points.js';
export { defaultResponseHeaderAllowList, toStoredResponse } from './stored-response.js';
export { completeAbandonedKeys, resumeOf } from './complete-abandoned-keys.js';
export type { AbandonedKeyResult, CompleteAbandonedKeysOptions } from './complete-abandoned-keys.js';
export { startCompleter } from './start-completer.js';
export type {
  CompleterRound,
  CompleterSchedule,
  RunningCompleter,
  StartCompleterOptions,
} from './start-completer.js';
