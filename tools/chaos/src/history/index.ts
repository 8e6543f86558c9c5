export { openHistory, readHistory } from './history-file.js';
export type { HistoryWriter } from './history-file.js';
export type {
  AttemptRecord,
  AttemptStatus,
  FaultRecord,
  HistoryRecord,
  IntentKind,
  IntentRecord,
  IntentTarget,
} from './history-records.js';
