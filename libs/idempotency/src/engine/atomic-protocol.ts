import { randomUUID } from 'node:crypto';
import { withSecretsReferenced } from '../commands/secret-reference.js';
import { decideArrival, decideKeyLog } from '../key-log/index.js';
import type { DecideCommandHandler } from './command-handler.js';
import { isConflict, KeyConflicts, toExpected } from './engine-runtime.js';
import type { EngineRuntime, Execution } from './engine-runtime.js';
import type { ExecuteOutcome } from './execute-outcome.js';

/**
 * The atomic protocol (docs/ARCHITECTURE.md "The atomic protocol"), for a decide handler on a store that appends to
 * several streams in one commit: read the key and the aggregates, decide, and append the key's completion with the
 * domain events in one commit. A crash anywhere leaves either nothing or everything. The key is read before the
 * aggregates' events are used: a replay costs one read, only a claim pays for the decision. A key some other holder
 * left in flight is taken over by the phased protocol (`takeOver`).
 *
 * A first attempt on aggregates whose events this process keeps up to their heads, or that it knows nothing of
 * (taken as new), skips the read: it decides as if the key were new, and only a decision that writes to every
 * aggregate it was made on can be appended so. The append is guarded (the key stream new under both its names, each
 * aggregate still at its kept head, or new, and without retention), so it commits exactly when the read would have
 * found the same; when it is refused, or the decision was anything else, the request is read and decided again. A
 * retry of a key this process did not complete pays one refused statement for it; where most attempts are refused
 * (other writers, retries), `KeptDecisions` has the engine read first.
 */
export const runAtomic = async (
  runtime: EngineRuntime,
  execution: Execution,
  handler: DecideCommandHandler,
  takeOver: (execution: Execution) => Promise<ExecuteOutcome>,
): Promise<ExecuteOutcome> => {
  const { settings, store } = runtime;
  const { input, request } = execution;
  let aggregateConflicts = 0;
  const keyConflicts = new KeyConflicts(settings.maxConflictRetries);
  let firstAttempt = true;
  for (;;) {
    const now = settings.clock();
    const context = execution.context(now);
    // The key and the aggregates in one statement where the store can (readKeyAndSnapshots): on PostgreSQL it is
    // the number of statements that costs, not the wait (docs/PERFORMANCE.md).
    // A handler whose `streams` throws is only told so once the key turns out to be a claim.
    let streams: readonly string[] | undefined;
    let streamsError: unknown;
    try {
      streams = handler.streams(context);
    } catch (error) {
      streamsError = error;
    }
    const unread = firstAttempt && streams !== undefined ? runtime.unreadSnapshots(streams) : undefined;
    firstAttempt = false;
    const { key, snapshots: read } =
      unread === undefined
        ? await runtime.readKeyAndSnapshots(execution, streams)
        : { key: runtime.newKey, snapshots: unread.snapshots };
    const { keyStream } = execution;
    const arrival = decideArrival(key.state, request, now, execution.alsoHashes);
    if (arrival.kind === 'take-over') return takeOver(execution);
    if (arrival.kind !== 'claim') return runtime.arrivalOutcome(execution, arrival, key);
    if (streams === undefined) return { kind: 'released', reason: 'handler-error', error: streamsError };
    const snapshots = read ?? (await runtime.readSnapshots(streams));

    const decided = runtime.decide(execution, handler, context, snapshots);
    if (unread !== undefined && !(decided.kind === 'accept' && writesEvery(decided.writes, snapshots)))
      continue;
    if (decided.kind === 'released') return decided.outcome;
    const holder = randomUUID();
    const expected = keyConflicts.expected(key.revision);
    // Claimed and completed in this one commit: a single event is the key's whole log (no lease to record, no
    // resume point).
    const keyLog = decideKeyLog(key.state, {
      type: 'Claim',
      request,
      claim: claimOf(execution, runtime.settings.referenceKeys, holder, now, runtime.leaseExpiresAt(now)),
      then: { type: 'Complete', response: decided.response },
      atomic: true,
    });
    if (keyLog.kind !== 'append') throw new Error('a claim always appends');
    const writes = decided.kind === 'accept' ? decided.writes : [];
    await runtime.fault('before-complete', keyStream, 'atomic');
    try {
      const [completion, ...effects] = await store.appendMulti([
        {
          stream: keyStream,
          events: execution.keyEvents(keyLog.events, holder, expected),
          expectedRevision: expected,
          ...runtime.claimRetention(input, expected),
        },
        ...writes.map((write) => ({
          stream: write.stream,
          events: write.events,
          expectedRevision: toExpected(write.expectedRevision),
          ...(unread === undefined ? {} : { expectNoRetention: true }),
        })),
      ]);
      if (completion !== undefined) execution.wroteKeyLog(completion);
      execution.wrote(effects);
      runtime.keepWritten(writes, effects);
      unread?.odds.record(false);
    } catch (error) {
      if (!isConflict(error)) throw error;
      if (unread !== undefined) {
        unread.odds.record(true);
        continue;
      }
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
      await runtime.backoff(aggregateConflicts);
      continue;
    }
    await runtime.fault('after-complete', keyStream, 'atomic');
    return { kind: 'first', response: decided.response, protocol: 'atomic', resumed: false };
  }
};

/** True when a decision writes to every aggregate it was made on (so its append checks each one's head). */
const writesEvery = (
  writes: readonly { readonly stream: string }[],
  snapshots: ReadonlyMap<string, unknown>,
): boolean => [...snapshots.keys()].every((stream) => writes.some((write) => write.stream === stream));

/** The claim's own fields: who holds the key, for what command (its secrets as references), until when. */
export const claimOf = (
  execution: Execution,
  referenceKeys: readonly Uint8Array[],
  holder: string,
  now: number,
  leaseExpiresAt: string,
) => ({
  tenantId: execution.input.scope.tenantId,
  actorId: execution.input.scope.actorId,
  key: execution.input.key,
  commandType: execution.input.command.type,
  commandVersion: execution.input.command.version,
  command: withSecretsReferenced(
    execution.input.command.data,
    execution.input.command.secretFields ?? [],
    referenceKeys[0] as Uint8Array,
  ),
  holder,
  claimedAt: new Date(now).toISOString(),
  leaseExpiresAt,
});
