import { randomUUID } from 'node:crypto';
import type { StreamRevision } from '@once/event-store';
import { decideKeyLog, evolveKeyState, retryAfterSeconds } from '../key-log/index.js';
import type { KeyInFlight, KeyLogInput, StoredResponse } from '../key-log/index.js';
import { follow } from './arrival-answers.js';
import type { EffectOutcome, EffectSpec, PhasedCommandContext } from './command-handler.js';
import { appendKeyLogTraced, readAggregatesTraced } from './command-spans.js';
import type { EngineRuntime } from './engine-runtime.js';
import { backoff, CrashSignal, faultAt, leaseExpiresAt } from './engine-settings.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { Execution } from './execution.js';
import { isConflict, KeyConflicts } from './key-conflicts.js';
import { Contention, KeyHolding, LeaseLost, RecordedBefore } from './key-holding.js';
import { claimRetention, inFlightClaimRetention } from './key-retention.js';
import { decideAndPlan, planWrites, recordedBefore } from './planning.js';
import { claimOf, openExecution } from './protocol-opening.js';
import { toStoredResponse } from './stored-response.js';

const MAIN_EFFECT = 'effect';

/**
 * The phased protocol (docs/ARCHITECTURE.md "The phased protocol"), for handlers with external calls and for stores
 * without atomic multi-stream appends: claim the key (with the plan, for a decide handler), then run the handler
 * from the top, each effect planned in the key log before it is appended and each external step recorded as a
 * recovery point; a later holder resumes from there. A decide handler that rejects completes with its claim.
 */
export const runPhased = async (runtime: EngineRuntime, execution: Execution): Promise<ExecuteOutcome> => {
  const { settings, store } = runtime;
  const { input, request, keyStream } = execution;
  const { handler } = input;
  const keyConflicts = new KeyConflicts(settings.maxConflictRetries);
  for (;;) {
    const opening = await openExecution(runtime, execution);
    if (opening.kind === 'answered') return opening.outcome;
    const { now, context, key, streams } = opening;
    if (handler.kind === 'decide' && streams === undefined) {
      return { kind: 'released', reason: 'handler-error', error: opening.streamsError };
    }
    const holder = randomUUID();
    let keyLog: KeyLogInput;
    if (opening.kind === 'take-over') {
      keyLog = { type: 'TakeOver', holder, now, leaseExpiresAt: leaseExpiresAt(settings, now) };
    } else {
      keyLog = { type: 'Claim', request, claim: claimOf(runtime, execution, holder, now) };
      if (handler.kind === 'decide' && streams !== undefined) {
        // No external call comes first: the claim and the plan (or the rejection) travel in one append.
        const snapshots = opening.snapshots ?? (await readAggregatesTraced(runtime, execution, streams));
        const decided = decideAndPlan(settings.allowList, execution, handler, context, snapshots);
        if (decided.kind === 'released' || decided.kind === 'expired') return decided.outcome;
        keyLog = {
          ...keyLog,
          then:
            decided.kind === 'reject'
              ? { type: 'Complete', response: decided.response }
              : {
                  type: 'Plan',
                  plan: {
                    point: MAIN_EFFECT,
                    writes: decided.writes,
                    response: decided.response,
                    holder,
                    leaseExpiresAt: leaseExpiresAt(settings, now),
                  },
                },
        };
      }
    }
    const decision = decideKeyLog(key.state, keyLog);
    if (decision.kind !== 'append') throw new Error('a claim or a take-over always appends');
    const { events } = decision;
    const expected = keyConflicts.expected(key.revision);
    const completesAtOnce = events.at(-1)?.type === 'IdempotencyKeyCompleted';
    if (completesAtOnce) await faultAt(settings, 'before-complete', keyStream, 'phased');
    let revision: StreamRevision;
    try {
      const result = await appendKeyLogTraced(execution, events, () =>
        store.appendToStream(keyStream, execution.keyEvents(events, holder, expected), {
          expectedRevision: expected,
          ...(opening.kind !== 'claim'
            ? {}
            : completesAtOnce
              ? claimRetention(settings, input, expected)
              : inFlightClaimRetention(expected)),
        }),
      );
      execution.wroteKeyLog(result);
      revision = result.nextExpectedRevision;
    } catch (error) {
      if (!isConflict(error)) throw error;
      // Another request claimed or took the lease first: re-read and follow it (normally in flight now).
      if (!keyConflicts.retry(error, key.revision)) return follow(runtime, execution);
      continue;
    }
    const state = events.reduce(evolveKeyState, key.state);
    if (state.status === 'completed') {
      await faultAt(settings, 'after-complete', keyStream, 'phased');
      return { kind: 'first', response: state.response, protocol: 'phased', resumed: false };
    }
    if (opening.kind === 'claim') {
      await faultAt(settings, 'after-claim', keyStream, 'phased');
      if (events.length > 1) await faultAt(settings, 'after-plan', keyStream, 'phased');
    }
    const resumed = opening.kind === 'take-over';
    return drive(
      runtime,
      new KeyHolding(runtime, execution, holder, revision, state as KeyInFlight, resumed),
    );
  }
};

/** An effect in a span of the command: its name, how it ended, and after how many attempts. */
const runEffect = <Result>(
  runtime: EngineRuntime,
  holding: KeyHolding,
  name: string,
  spec: EffectSpec<Result>,
  storeAs: 'result' | 'response',
): Promise<EffectOutcome<Result>> =>
  holding.execution.trace.span('once.effect', async (span) => {
    span.set({ 'once.effect.name': name, 'once.effect.planned': holding.state.plans[name] !== undefined });
    const outcome = await runPlannedEffect(runtime, holding, name, spec, storeAs, (attempts) =>
      span.set({ 'once.effect.attempts': attempts }),
    );
    span.set({ 'once.effect.outcome': outcome.kind });
    return outcome;
  });

const runPlannedEffect = async <Result>(
  runtime: EngineRuntime,
  holding: KeyHolding,
  name: string,
  spec: EffectSpec<Result>,
  storeAs: 'result' | 'response',
  onAttempt: (attempts: number) => void,
): Promise<EffectOutcome<Result>> => {
  const { keyStream } = holding.execution;
  let plan = holding.state.plans[name];
  for (let attempt = 0; ; attempt++) {
    onAttempt(attempt + 1);
    if (plan === undefined) {
      const snapshots = await readAggregatesTraced(runtime, holding.execution, spec.streams);
      const decision = spec.decide(snapshots);
      if (decision.kind === 'reject') return { kind: 'rejected', response: decision.response };
      const prefix = name === MAIN_EFFECT ? '' : `${name}:`;
      const writes = planWrites(holding.execution, prefix, decision.writes, snapshots);
      const recorded = recordedBefore(writes, snapshots);
      if (recorded !== undefined) throw new RecordedBefore(recorded);
      const base = {
        point: name,
        writes,
        holder: holding.holder,
        leaseExpiresAt: holding.lease(),
      };
      plan =
        storeAs === 'response'
          ? { ...base, response: decision.result as StoredResponse }
          : { ...base, result: decision.result };
      await holding.append({ type: 'Plan', plan });
      await faultAt(runtime.settings, 'after-plan', keyStream, 'phased');
    }
    holding.maybeApplied.add(`effect:${name}`);
    if (await holding.applyPlan(plan)) {
      await faultAt(runtime.settings, 'after-effect', keyStream, 'phased');
      return { kind: 'applied', result: (storeAs === 'response' ? plan.response : plan.result) as Result };
    }
    // Stale: the stream moved past the planned revision and our events are not there, so they never will be.
    holding.maybeApplied.delete(`effect:${name}`);
    if (attempt >= runtime.settings.maxConflictRetries)
      throw new Contention(`effect ${name} kept conflicting`);
    await backoff(runtime.settings, attempt + 1);
    plan = undefined;
  }
};

/** A step in a span of the command: its name, whether it resumes a started one or was recorded finished already. */
const runStep = <Result>(
  holding: KeyHolding,
  name: string,
  run: (attempt: { readonly resumed: boolean }) => Promise<Result>,
): Promise<Result> =>
  holding.execution.trace.span('once.step', async (span) => {
    const recorded = holding.state.steps[name];
    const resumed = recorded?.stage === 'started';
    span.set({
      'once.step.name': name,
      'once.step.recorded': recorded?.stage === 'finished',
      'once.step.resumed': resumed,
    });
    if (recorded?.stage === 'finished') return recorded.data as Result;
    const reach = { type: 'ReachStep', holder: holding.holder, point: name } as const;
    await holding.append({ ...reach, leaseExpiresAt: holding.lease() });
    holding.maybeApplied.add(`step:${name}`);
    const data = await run({ resumed });
    await holding.append({ ...reach, leaseExpiresAt: holding.lease(), finished: { data } });
    return data;
  });

type Failure =
  | { readonly reason: 'handler-error'; readonly error: unknown }
  | { readonly reason: 'server-error-response'; readonly response: StoredResponse }
  | { readonly reason: 'contention'; readonly error: unknown }
  | { readonly reason: 'recorded-before'; readonly error: RecordedBefore };

const leaseSecondsLeft = (runtime: EngineRuntime, holding: KeyHolding): number =>
  retryAfterSeconds(holding.state.leaseExpiresAt - runtime.settings.clock());

/**
 * After a failure: release the key if nothing may have reached the outside, else keep it for the next holder. A key
 * whose effect an earlier life recorded is released whatever this life's steps did: kept, every later holder would
 * find the same effect recorded and keep it again, for ever; its steps ran under the keys its earlier life used.
 */
const releaseOrKeep = async (
  runtime: EngineRuntime,
  holding: KeyHolding,
  failure: Failure,
): Promise<ExecuteOutcome> => {
  const error = 'error' in failure ? failure.error : undefined;
  let released;
  try {
    released = await holding.append({
      type: 'Release',
      holder: holding.holder,
      reason: failure.reason,
      maybeApplied: failure.reason !== 'recorded-before' && holding.maybeApplied.size > 0,
    });
  } catch (releaseError) {
    if (releaseError instanceof LeaseLost) return follow(runtime, holding.execution);
    const retryAfter = leaseSecondsLeft(runtime, holding);
    return { kind: 'unavailable', reason: 'store-error', retryAfterSeconds: retryAfter, error: releaseError };
  }
  if (released.kind === 'keep') {
    // Something may have happened outside: the key stays in flight and the next holder resumes it.
    return {
      kind: 'unavailable',
      reason: 'effects-pending',
      retryAfterSeconds: leaseSecondsLeft(runtime, holding),
      error,
    };
  }
  switch (failure.reason) {
    case 'contention':
      return { kind: 'unavailable', reason: 'contention', retryAfterSeconds: 1, error };
    case 'recorded-before':
      return { kind: 'expired', stream: failure.error.stream };
    case 'handler-error':
      return { kind: 'released', reason: 'handler-error', error };
    case 'server-error-response':
      return { kind: 'released', reason: 'server-error-response', response: failure.response };
    default: {
      const _exhaustive: never = failure;
      return _exhaustive;
    }
  }
};

/** Runs the handler under our hold on the key, from its recovery point, and completes the key. */
const drive = async (runtime: EngineRuntime, holding: KeyHolding): Promise<ExecuteOutcome> => {
  const { execution } = holding;
  const { handler } = execution.input;
  const { allowList } = runtime.settings;
  const context = execution.context(Date.parse(holding.state.claim.claimedAt));
  try {
    let response: StoredResponse;
    if (handler.kind === 'decide') {
      const outcome = await runEffect<StoredResponse>(
        runtime,
        holding,
        MAIN_EFFECT,
        {
          streams: handler.streams(context),
          decide: (snapshots) => {
            const decision = handler.decide(context, snapshots);
            return decision.kind === 'accept'
              ? {
                  kind: 'accept',
                  writes: decision.writes,
                  result: toStoredResponse(decision.response, allowList),
                }
              : decision;
          },
        },
        'response',
      );
      response = outcome.kind === 'applied' ? outcome.result : toStoredResponse(outcome.response, allowList);
    } else {
      const phased: PhasedCommandContext = {
        ...context,
        effect: (name, spec) => runEffect(runtime, holding, name, spec, 'result'),
        step: (name, run) => runStep(holding, name, run),
      };
      response = toStoredResponse(await handler.run(phased), allowList);
    }
    if (response.status >= 500) {
      return await releaseOrKeep(runtime, holding, { reason: 'server-error-response', response });
    }
    await faultAt(runtime.settings, 'before-complete', execution.keyStream, 'phased');
    await holding.append({ type: 'Complete', holder: holding.holder, request: execution.request, response });
    await faultAt(runtime.settings, 'after-complete', execution.keyStream, 'phased');
    return { kind: 'first', response, protocol: 'phased', resumed: holding.resumed };
  } catch (error) {
    if (error instanceof CrashSignal) throw error;
    if (error instanceof LeaseLost) return follow(runtime, execution);
    if (error instanceof Contention) return releaseOrKeep(runtime, holding, { reason: 'contention', error });
    if (error instanceof RecordedBefore) {
      return releaseOrKeep(runtime, holding, { reason: 'recorded-before', error });
    }
    return releaseOrKeep(runtime, holding, { reason: 'handler-error', error });
  }
};
