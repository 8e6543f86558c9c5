import { decideArrival } from '../key-log/index.js';
import type { ArrivalDecision } from '../key-log/index.js';
import type { EngineRuntime } from './engine-runtime.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { Execution } from './execution.js';
import type { KeyLogRead } from './key-log-reads.js';

/** An arrival that needs no write: a replay, a reuse, or a key in flight elsewhere. */
export type AnsweredArrival = Exclude<ArrivalDecision, { kind: 'claim' | 'take-over' }>;

/** The answer to an arrival that needs no write; a replay read from its log is remembered (`CompletedKeys`). */
export const answerArrival = (
  runtime: EngineRuntime,
  execution: Execution,
  arrival: AnsweredArrival,
  key?: KeyLogRead,
): ExecuteOutcome => {
  switch (arrival.kind) {
    case 'replay':
      if (key?.completedRecordedAt !== undefined) {
        runtime.completedKeys.remember(
          execution,
          arrival.response,
          key.completedAt,
          key.completedRecordedAt.getTime(),
        );
      }
      return {
        kind: 'replay',
        response: arrival.response,
        ...(key?.completedAt === undefined ? {} : { position: key.completedAt }),
      };
    case 'reused':
      return { kind: 'reused', original: arrival.original };
    case 'in-flight':
      return { kind: 'in-flight', retryAfterSeconds: arrival.retryAfterSeconds };
    default: {
      const _exhaustive: never = arrival;
      return _exhaustive;
    }
  }
};

/** After losing a race for the key: read it again and answer what it now says (normally in flight). */
export const follow = async (runtime: EngineRuntime, execution: Execution): Promise<ExecuteOutcome> => {
  const { key, arrival } = await execution.trace.span('once.key_log.read', async (span) => {
    const read = await runtime.reads.key(execution.keyStream);
    const decided = decideArrival(
      read.state,
      execution.request,
      runtime.settings.clock(),
      execution.alsoHashes,
    );
    span.set({ 'once.key_log.state': read.state.status, 'once.key_log.arrival': decided.kind });
    return { key: read, arrival: decided };
  });
  if (arrival.kind === 'claim' || arrival.kind === 'take-over') {
    return { kind: 'unavailable', reason: 'contention', retryAfterSeconds: 1 };
  }
  return answerArrival(runtime, execution, arrival, key);
};
