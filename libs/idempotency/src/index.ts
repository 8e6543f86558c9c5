export {
  parseIdempotencyKeyHeader,
  IDEMPOTENCY_KEY_MIN_LENGTH,
  IDEMPOTENCY_KEY_MAX_LENGTH,
} from './header/index.js';
export type { IdempotencyKeyHeaderResult, IdempotencyKeyRejection } from './header/index.js';
export { uuidV5, deriveId, UUID_NAMESPACE_DNS, UUID_NAMESPACE_URL, ONCE_ID_NAMESPACE } from './ids/index.js';
export type { IdempotencyScope } from './ids/index.js';
export { bindCommand, commandFromInput, commandHandlers, defineCommand } from './commands/index.js';
export type {
  BoundCommand,
  CommandDefinition,
  CommandHandlers,
  CommandInput,
  CommandOf,
  TypedCommand,
} from './commands/index.js';
export {
  claimedCommand,
  decideArrival,
  decideKeyLog,
  evolveKeyState,
  foldKeyLog,
  initialKeyState,
  isKeyLogEvent,
  keyLogEventTypes,
  keyStreamName,
  KeyLogCorruptedError,
  KEY_STREAM_PREFIX,
  retryAfterSeconds,
} from './key-log/index.js';
export type {
  ArrivalDecision,
  ClaimUpcaster,
  IdempotencyEffectPlannedData,
  IdempotencyKeyClaimedData,
  IdempotencyKeyCompletedData,
  IdempotencyKeyReleasedData,
  IdempotencyLeaseTakenData,
  IdempotencyRecoveryPointReachedData,
  KeyInFlight,
  KeyLogDecision,
  KeyLogEvent,
  KeyLogInput,
  KeyLogEventType,
  KeyState,
  LegacyClaimedRequest,
  LegacyKeyClaimedData,
  PlannedEvent,
  PlannedWrite,
  RequestFingerprint,
  StoredResponse,
} from './key-log/index.js';
export {
  accept,
  completeAbandonedKeys,
  createIdempotencyEngine,
  defaultResponseHeaderAllowList,
  defineDecideHandler,
  definePhasedHandler,
  faultPoints,
  reject,
  toStoredResponse,
} from './engine/index.js';
export type {
  AbandonedKeyResult,
  CommandContext,
  CommandDecision,
  CommandHandler,
  CommandIds,
  CommandRequest,
  CompleteAbandonedKeysOptions,
  DecideCommandHandler,
  EffectDecision,
  EffectOutcome,
  EffectSpec,
  EngineProtocol,
  ExecuteInput,
  ExecuteOutcome,
  ExecuteOutcomeKind,
  FaultContext,
  FaultHook,
  FaultPoint,
  HandlerResponse,
  IdempotencyEngine,
  IdempotencyEngineOptions,
  NewEvent,
  PhasedCommandContext,
  PhasedCommandHandler,
  StreamSnapshot,
  StreamWrite,
} from './engine/index.js';
export { commandRoute, idempotencyFastifyPlugin } from './fastify/index.js';
export type {
  CommandRouteOptions,
  CommandRouteSettings,
  IdempotencyDecorator,
  IdempotencyPluginOptions,
  IdempotencyProblemCatalog,
} from './fastify/index.js';
export { idempotencyProblems, Problem, ProblemCatalog } from './problems/index.js';
export type {
  IdempotencyProblemType,
  ProblemAnswer,
  ProblemCatalogSettings,
  ProblemDocument,
  ProblemExtension,
  ProblemOptions,
  ProblemText,
  ProblemType,
  ProblemTypeOf,
} from './problems/index.js';
