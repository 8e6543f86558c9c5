export {
  parseIdempotencyKeyHeader,
  IDEMPOTENCY_KEY_MIN_LENGTH,
  IDEMPOTENCY_KEY_MAX_LENGTH,
} from './header/index.js';
export type { IdempotencyKeyHeaderResult, IdempotencyKeyRejection } from './header/index.js';
export { uuidV5, deriveId, UUID_NAMESPACE_DNS, UUID_NAMESPACE_URL, ONCE_ID_NAMESPACE } from './ids/index.js';
export type { IdempotencyScope } from './ids/index.js';
export {
  bindCommand,
  commandHandlers,
  defineCommand,
  isSecretReference,
  secretReference,
} from './commands/index.js';
export type {
  BoundCommand,
  CommandDefinition,
  CommandHandlers,
  CommandInput,
  CommandOf,
  TypedCommand,
} from './commands/index.js';
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
