export { commandTracer, untraced } from './command-trace.js';
export type {
  CommandTrace,
  CommandTraceEnd,
  CommandTraceStart,
  EngineSpanName,
  StartedCommandTrace,
  TraceAttributes,
  TraceAttributeValue,
  TraceSpan,
} from './command-trace.js';
