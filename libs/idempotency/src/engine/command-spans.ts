import type { TraceAttributes } from '../tracing/index.js';
import type { StreamSnapshot } from './command-handler.js';
import type { EngineRuntime } from './engine-runtime.js';
import type { ExecuteInput } from './engine-settings.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { Execution } from './execution.js';
import { isConflict } from './key-conflicts.js';

/** What names a command in its span: its type and version, and the route it came by (never the key or the scope). */
export const commandSpanAttributes = (input: ExecuteInput): TraceAttributes => ({
  'once.command.type': input.command.type,
  'once.command.version': input.command.version,
  'http.request.method': input.request.method.toUpperCase(),
  'http.route': input.request.route,
});

/** How a command's span ends: its outcome, and an error for a failure the client sees as a 5xx. */
export const outcomeSpanEnd = (
  outcome: ExecuteOutcome,
): { readonly attributes: TraceAttributes; readonly failed: boolean; readonly error?: unknown } => {
  switch (outcome.kind) {
    case 'first':
      return {
        attributes: {
          'once.outcome': outcome.kind,
          'once.protocol': outcome.protocol,
          'once.resumed': outcome.resumed,
        },
        failed: false,
      };
    case 'replay':
    case 'in-flight':
    case 'reused':
    case 'expired':
      return { attributes: { 'once.outcome': outcome.kind }, failed: false };
    case 'released':
      return {
        attributes: { 'once.outcome': outcome.kind, 'once.outcome.reason': outcome.reason },
        failed: true,
        error: outcome.error,
      };
    case 'unavailable':
      return {
        attributes: { 'once.outcome': outcome.kind, 'once.outcome.reason': outcome.reason },
        failed: true,
        error: outcome.error,
      };
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
};

/** The aggregates `streams` names, read in a span of the command. */
export const readAggregatesTraced = (
  runtime: EngineRuntime,
  execution: Execution,
  streams: readonly string[],
): Promise<ReadonlyMap<string, StreamSnapshot>> =>
  execution.trace.span('once.aggregates.read', async (span) => {
    span.set({ 'once.aggregates': streams.length });
    return runtime.reads.aggregates(streams);
  });

/**
 * An append to the key stream (with the effects' writes, in the atomic protocol), in a span of the command: the
 * key-log events' types, and whether the append landed or met a conflict.
 */
export const appendKeyLogTraced = <Result>(
  execution: Execution,
  events: readonly { readonly type: string }[],
  append: () => Promise<Result>,
  effectStreams = 0,
): Promise<Result> =>
  execution.trace.span('once.key_log.append', async (span) => {
    span.set({
      'once.key_log.events': events.map((event) => event.type),
      'once.effect.streams': effectStreams,
    });
    try {
      const result = await append();
      span.set({ 'once.key_log.append': 'appended' });
      return result;
    } catch (error) {
      if (isConflict(error)) span.set({ 'once.key_log.append': 'conflict' });
      throw error;
    }
  });
