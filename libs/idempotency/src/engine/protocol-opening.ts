import { withSecretsReferenced } from '../commands/secret-reference.js';
import { decideArrival } from '../key-log/index.js';
import { answerArrival } from './arrival-answers.js';
import type { CommandContext, StreamSnapshot } from './command-handler.js';
import type { EngineRuntime } from './engine-runtime.js';
import { leaseExpiresAt } from './engine-settings.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { Execution } from './execution.js';
import type { KeyLogRead } from './key-log-reads.js';

/** How an execution opened: answered from its key log, or free to claim or take over. */
export type Opening =
  | { readonly kind: 'answered'; readonly outcome: ExecuteOutcome }
  | {
      readonly kind: 'claim' | 'take-over';
      readonly now: number;
      readonly context: CommandContext;
      readonly key: KeyLogRead;
      /** A decide handler's streams; undefined for a phased handler, or when `streams` threw (`streamsError`). */
      readonly streams: readonly string[] | undefined;
      readonly streamsError: unknown;
      /** The aggregates, when read with the key (a new key stream). */
      readonly snapshots: ReadonlyMap<string, StreamSnapshot> | undefined;
    };

/**
 * How both protocols open (docs/ARCHITECTURE.md "Both protocols open alike"): ask a decide handler which streams it
 * decides on, read the key stream with them in one call, and decide the arrival. A replay, a reuse or a key in flight
 * is answered here; a handler whose `streams` throws is told so only once the key turns out free.
 */
export const openExecution = async (runtime: EngineRuntime, execution: Execution): Promise<Opening> => {
  const { handler } = execution.input;
  const now = runtime.settings.clock();
  const context = execution.context(now);
  let streams: readonly string[] | undefined;
  let streamsError: unknown;
  try {
    streams = handler.kind === 'decide' ? handler.streams(context) : undefined;
  } catch (error) {
    streamsError = error;
  }
  const { key, snapshots, arrival } = await execution.trace.span('once.key_log.read', async (span) => {
    const read = await runtime.reads.keyAndAggregates(execution, streams);
    const decided = decideArrival(read.key.state, execution.request, now, execution.alsoHashes);
    span.set({
      'once.key_log.state': read.key.state.status,
      'once.key_log.arrival': decided.kind,
      'once.aggregates': read.snapshots?.size ?? 0,
    });
    return { ...read, arrival: decided };
  });
  if (arrival.kind !== 'claim' && arrival.kind !== 'take-over') {
    return { kind: 'answered', outcome: answerArrival(runtime, execution, arrival, key) };
  }
  return { kind: arrival.kind, now, context, key, streams, streamsError, snapshots };
};

/** The claim's own fields: who holds the key, for what command (its secrets as references), until when. */
export const claimOf = (runtime: EngineRuntime, execution: Execution, holder: string, now: number) => ({
  tenantId: execution.input.scope.tenantId,
  actorId: execution.input.scope.actorId,
  key: execution.input.key,
  commandType: execution.input.command.type,
  commandVersion: execution.input.command.version,
  command: withSecretsReferenced(
    execution.input.command.data,
    execution.input.command.secretFields ?? [],
    runtime.settings.referenceKeys[0] as Uint8Array,
  ),
  holder,
  claimedAt: new Date(now).toISOString(),
  leaseExpiresAt: leaseExpiresAt(runtime.settings, now),
});
