export { answerOutcome, commandFromInput, routeCommands, runKeyedCommand } from './keyed-command.js';
export type {
  AnswerSettings,
  CommandAnswer,
  CommandRouteSettings,
  KeyedCommandRequest,
  RouteCommand,
} from './keyed-command.js';
export { REPLAYED_HEADER, toHttpAnswer } from './http-answer.js';
export type { HttpAnswer } from './http-answer.js';
export type { IdempotencyProblemCatalog } from './problem-catalog-port.js';
export type { CommandAdapterOptions } from './adapter-options.js';
export { idempotencyKeyLines } from './raw-header-lines.js';
