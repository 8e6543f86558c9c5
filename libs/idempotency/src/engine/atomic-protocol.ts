import { randomUUID } from 'node:crypto';
import type { ExpectedRevision } from '@once/event-store';
import { decideKeyLog } from '../key-log/index.js';
import type { KeyState, PlannedWrite, StoredResponse } from '../key-log/index.js';
import type { DecideCommandHandler } from './command-handler.js';
import { appendKeyLogTraced, readAggregatesTraced } from './command-spans.js';
import type { EngineRuntime } from './engine-runtime.js';
import { backoff, faultAt } from './engine-settings.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { Execution } from './execution.js';
import { isConflict, KeyConflicts, toExpected } from './key-conflicts.js';
import { newKeyLog } from './key-log-reads.js';
import { claimRetention } from './key-retention.js';
import { decideAndPlan } from './planning.js';
import { claimOf, openExecution } from './protocol-opening.js';

/**
 * The atomic protocol (docs/ARCHITECTURE.md "The atomic protocol"), for a decide handler on a store that appends to
 * several streams in one commit: read the key and the aggregates, decide, and append the key's completion with the
 * domain events in one commit. A crash anywhere leaves either nothing or everything. The key is read before the
 * aggregates' events are used: a replay costs one read, only a claim pays for the decision. A key some other holder
 * left in flight is taken over by the phased protocol (`takeOver`). A first request may be decided with no read at
 * all by the read shortcuts (`ReadShortcuts.decideWithoutRead`); otherwise, or when its guarded append is refused,
 * the protocol runs as written.
 */
export const runAtomic = async (
  runtime: EngineRuntime,
  execution: Execution,
  handler: DecideCommandHandler,
  takeOver: (execution: Execution) => Promise<ExecuteOutcome>,
): Promise<ExecuteOutcome> => {
  const withoutRead = await decidedWithoutRead(runtime, execution, handler);
  if (withoutRead !== undefined) return withoutRead;
  const { settings } = runtime;
  const { keyStream } = execution;
  let aggregateConflicts = 0;
  const keyConflicts = new KeyConflicts(settings.maxConflictRetries);
  for (;;) {
    const opening = await openExecution(runtime, execution);
    if (opening.kind === 'answered') return opening.outcome;
    if (opening.kind === 'take-over') return takeOver(execution);
    const { now, context, key, streams } = opening;
    if (streams === undefined)
      return { kind: 'released', reason: 'handler-error', error: opening.streamsError };
    const snapshots = opening.snapshots ?? (await readAggregatesTraced(runtime, execution, streams));
    const decided = decideAndPlan(settings.allowList, execution, handler, context, snapshots);
    if (decided.kind === 'released' || decided.kind === 'expired') return decided.outcome;
    const writes = decided.kind === 'accept' ? decided.writes : [];
    const expected = keyConflicts.expected(key.revision);
    try {
      await completeWithWrites(
        runtime,
        execution,
        { key: key.state, expected, now },
        writes,
        decided.response,
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      if (error.stream === keyStream) {
        if (!keyConflicts.retry(error, key.revision)) {
          return { kind: 'unavailable', reason: 'contention', retryAfterSeconds: 1 };
        }
        continue;
      }
      aggregateConflicts += 1;
      if (aggregateConflicts > settings.maxConflictRetries) {
        return { kind: 'unavailable', reason: 'contention', retryAfterSeconds: 1 };
      }
      await backoff(settings, aggregateConflicts);
      continue;
    }
    await faultAt(settings, 'after-complete', keyStream, 'atomic');
    return { kind: 'first', response: decided.response, protocol: 'atomic', resumed: false };
  }
};

/** A first request the read shortcuts decided with no read and committed, or undefined to run the protocol. */
const decidedWithoutRead = async (
  runtime: EngineRuntime,
  execution: Execution,
  handler: DecideCommandHandler,
): Promise<ExecuteOutcome | undefined> => {
  if (runtime.shortcuts === undefined) return undefined;
  const now = runtime.settings.clock();
  const context = execution.context(now);
  let streams: readonly string[];
  try {
    streams = handler.streams(context);
  } catch {
    return undefined;
  }
  const response = await runtime.shortcuts.decideWithoutRead(streams, {
    decide: (snapshots) => decideAndPlan(runtime.settings.allowList, execution, handler, context, snapshots),
    appendGuarded: async (writes, stored) => {
      const onNewKey = { key: newKeyLog.state, expected: 'no_stream' as const, now };
      try {
        await completeWithWrites(runtime, execution, onNewKey, writes, stored, { guarded: true });
        return true;
      } catch (error) {
        if (isConflict(error)) return false;
        throw error;
      }
    },
  });
  if (response === undefined) return undefined;
  await faultAt(runtime.settings, 'after-complete', execution.keyStream, 'atomic');
  return { kind: 'first', response, protocol: 'atomic', resumed: false };
};

/**
 * Claims and completes the key in one commit with the decision's writes: a single event is the key's whole log (no
 * lease to record, no resume point). Guarded, every write also expects its stream without retention (see
 * `StreamAppend.expectNoRetention`). Throws the store's conflict when an expectation fails.
 */
const completeWithWrites = async (
  runtime: EngineRuntime,
  execution: Execution,
  at: { readonly key: KeyState; readonly expected: ExpectedRevision; readonly now: number },
  writes: readonly PlannedWrite[],
  response: StoredResponse,
  { guarded = false } = {},
): Promise<void> => {
  const { settings, store } = runtime;
  const holder = randomUUID();
  const keyLog = decideKeyLog(at.key, {
    type: 'Claim',
    request: execution.request,
    claim: claimOf(runtime, execution, holder, at.now),
    then: { type: 'Complete', response },
    atomic: true,
  });
  if (keyLog.kind !== 'append') throw new Error('a claim always appends');
  await faultAt(settings, 'before-complete', execution.keyStream, 'atomic');
  const [completion, ...effects] = await appendKeyLogTraced(
    execution,
    keyLog.events,
    () =>
      store.appendMulti([
        {
          stream: execution.keyStream,
          events: execution.keyEvents(keyLog.events, holder, at.expected),
          expectedRevision: at.expected,
          ...claimRetention(settings, execution.input, at.expected),
        },
        ...writes.map((write) => ({
          stream: write.stream,
          events: write.events,
          expectedRevision: toExpected(write.expectedRevision),
          ...(guarded ? { expectNoRetention: true } : {}),
        })),
      ]),
    writes.length,
  );
  if (completion !== undefined) execution.wroteKeyLog(completion);
  execution.wrote(effects);
  runtime.shortcuts?.keepWritten(writes, effects);
};
