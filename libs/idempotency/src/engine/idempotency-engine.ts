import { randomBytes } from 'node:crypto';
import type { EventStore } from '@once/event-store';
import type { KeyState } from '../key-log/index.js';
import { commandTracer } from '../tracing/index.js';
import type { CommandTrace } from '../tracing/index.js';
import { runAtomic } from './atomic-protocol.js';
import { commandSpanAttributes, outcomeSpanEnd } from './command-spans.js';
import { CompletedKeys, completedKeyMemory } from './completed-keys.js';
import type { EngineRuntime } from './engine-runtime.js';
import { CrashSignal } from './engine-settings.js';
import type { EngineSettings, ExecuteInput } from './engine-settings.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import { Execution } from './execution.js';
import type { FaultHook } from './fault-points.js';
import { createKeyLogReads } from './key-log-reads.js';
import { runPhased } from './phased-protocol.js';
import { createReadShortcuts } from './read-shortcuts/index.js';
import { defaultResponseHeaderAllowList } from './stored-response.js';

export type { ExecuteInput } from './engine-settings.js';

export interface IdempotencyEngineOptions {
  readonly store: EventStore;
  /** Epoch milliseconds; leases and `requestedAt` come from here. Default `Date.now`. */
  readonly clock?: () => number;
  /** In [0, 1): the jitter of conflict retries. Default `Math.random`. */
  readonly random?: () => number;
  /** How retries wait. Default `setTimeout`. */
  readonly sleep?: (milliseconds: number) => Promise<void>;
  /** How long a holder owns an in-flight key before another request may take it over. Default 30 s. */
  readonly leaseMs?: number;
  /** Default key retention (seconds) when the handler sets none. Default 24 h. */
  readonly retentionSeconds?: number;
  /** `phased` forces the phased protocol even where the store appends atomically (tests, EventStoreDB parity). */
  readonly protocol?: 'auto' | 'phased';
  /** Re-decisions after an optimistic-concurrency conflict on an aggregate, before answering `unavailable`. Default 5. */
  readonly maxConflictRetries?: number;
  /** Base of the full-jitter backoff between re-decisions. Default 5 ms. */
  readonly retryBaseMs?: number;
  /** Fault points: crash or stall the engine between protocol steps. */
  readonly faults?: FaultHook;
  /** Called once per `execute` with its outcome (metrics per route). */
  readonly onOutcome?: (
    outcome: ExecuteOutcome,
    request: { readonly method: string; readonly route: string },
  ) => void;
  /** Response headers kept and replayed (lower-case). Default content-type, location, etag, last-modified, content-location. */
  readonly responseHeaderAllowList?: readonly string[];
  /**
   * The server keys (32 bytes or more each) a command's secret fields are referenced under, as an HMAC, in the key log
   * and in the request fingerprint (`CommandDefinition.secretFields`): the current key first, then older ones a retry
   * is also matched under, so changing the key changes no key's answer. Default: one random key of this engine, for a
   * single process; give every process the same keys.
   */
  readonly secretReferenceKeys?: readonly Uint8Array[];
  /**
   * Completed keys answered from memory, without a read (a completed key log is final until it expires): how many
   * are kept, those remembered longest dropped first, and for how long. Each keeps its stored response, and its
   * request where that is at most 1 KiB as canonical JSON and holds no secret field (a retry is compared with it,
   * not hashed). Default 10,000 keys for 5 minutes; a capacity of 0 reads every arrival from the key log.
   */
  readonly completedKeys?: { readonly capacity?: number; readonly ttlMs?: number };
  /**
   * Decide a first request on aggregates whose events this process keeps (it read or wrote them before), or that it
   * knows nothing of (taken as new, where the store reads tails), without a read, where the store appends atomically:
   * the append itself proves the key new and the aggregates unchanged, or the request is read and decided again.
   * Default true. Where most attempts are refused (other processes write the same aggregates, or retry keys they
   * completed), the engine reads first on its own (trying one request in 16, in 128 on new ones); false never tries.
   */
  readonly decideOnKeptEvents?: boolean;
  /**
   * How many events of the aggregates it decides on the engine keeps in memory, over all of them (about a kilobyte
   * each), so that the next decision on one reads only what was appended since, or nothing. Past it, the aggregates
   * least recently read are dropped and read whole when next decided on. Default 250,000; 0 keeps none.
   */
  readonly keptEvents?: number;
}

export interface IdempotencyEngine {
  /** Runs a keyed command exactly once; every other arrival gets the stored outcome or a retryable answer. */
  execute<Command>(input: ExecuteInput<Command>): Promise<ExecuteOutcome>;
  /** The current state of a key stream (for the completer and `GET /idempotency-keys/:key`). */
  readKeyState(keyStream: string): Promise<KeyState>;
  /** The engine's clock, epoch milliseconds. */
  now(): number;
  readonly store: EventStore;
}

const DAY_SECONDS = 24 * 60 * 60;

/**
 * Creates the command engine over an event store (docs/ARCHITECTURE.md "The key log"): the atomic protocol where
 * the store appends to several streams in one commit and the handler has no external calls, the phased protocol
 * otherwise.
 * `execute` answers every store failure as an outcome; it throws only a crash injected at a fault point, and a
 * `CanonicalJsonError` when params or body are not JSON values.
 *
 * @example
 * const engine = createIdempotencyEngine({ store: createInMemoryEventStore() });
 * const outcome = await engine.execute({
 *   scope: { tenantId: 't1', actorId: 'a1' },
 *   key: '8e03978e-40d5-43e8-bc93-6894a57f9324',
 *   request: { method: 'POST', route: '/counters/:id/increments', params: { id: 'c1' }, body: { by: 1 } },
 *   command: { type: 'IncrementCounter', version: 1, data: { counterId: 'c1', by: 1 } },
 *   handler: incrementCounter,
 * });
 * if (outcome.kind === 'first' || outcome.kind === 'replay') reply.code(outcome.response.status).send(outcome.response.body);
 */
export const createIdempotencyEngine = (options: IdempotencyEngineOptions): IdempotencyEngine => {
  const settings: EngineSettings = {
    store: options.store,
    clock: options.clock ?? Date.now,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    leaseMs: options.leaseMs ?? 30_000,
    retentionSeconds: options.retentionSeconds ?? DAY_SECONDS,
    maxConflictRetries: options.maxConflictRetries ?? 5,
    retryBaseMs: options.retryBaseMs ?? 5,
    faults: options.faults,
    allowList: options.responseHeaderAllowList ?? defaultResponseHeaderAllowList,
    referenceKeys: options.secretReferenceKeys?.length ? options.secretReferenceKeys : [randomBytes(32)],
  };
  const shortcuts = createReadShortcuts({
    decideWithoutRead: options.decideOnKeptEvents ?? true,
    ...(options.keptEvents === undefined ? {} : { keptEvents: options.keptEvents }),
  });
  const runtime: EngineRuntime = {
    settings,
    store: options.store,
    reads: createKeyLogReads(options.store, shortcuts),
    shortcuts,
    completedKeys: completedKeyMemory(
      new CompletedKeys(options.completedKeys?.capacity, options.completedKeys?.ttlMs),
      settings,
    ),
  };
  const forcePhased = options.protocol === 'phased';
  const takeOver = (execution: Execution) => runPhased(runtime, execution);
  const startCommandTrace = commandTracer();

  const run = async (input: ExecuteInput, trace: CommandTrace): Promise<ExecuteOutcome> => {
    const execution = new Execution(input, runtime.settings.referenceKeys, trace);
    const remembered = runtime.completedKeys.answer(execution);
    if (remembered !== undefined) return remembered;
    // Params or a body that are not JSON throw here, as `execute` promises, not in a protocol (its errors: the store's).
    execution.fingerprint();
    let outcome: ExecuteOutcome;
    try {
      const { handler } = input;
      outcome =
        !forcePhased && options.store.capabilities.atomicMultiStreamAppend && handler.kind === 'decide'
          ? await runAtomic(runtime, execution, handler, takeOver)
          : await runPhased(runtime, execution);
    } catch (error) {
      if (error instanceof CrashSignal) throw error.error;
      outcome = { kind: 'unavailable', reason: 'store-error', retryAfterSeconds: 1, error };
    }
    // Where this execution's own appends reached: the token a read of the write waits for.
    const answered =
      outcome.kind === 'first' || outcome.kind === 'released' || outcome.kind === 'unavailable'
        ? execution.withPosition(outcome)
        : outcome;
    if (answered.kind === 'first') {
      runtime.completedKeys.remember(
        execution,
        answered.response,
        execution.keyLogPosition,
        runtime.settings.clock(),
      );
    }
    return answered;
  };

  return {
    store: options.store,
    now: () => runtime.settings.clock(),
    readKeyState: async (keyStream) => (await runtime.reads.key(keyStream)).state,
    execute: async (typed) => {
      // The handler and the command were typed together by the caller; past this point the engine only passes the
      // command from one to the other.
      const input = typed as unknown as ExecuteInput;
      // A span for the command, under the request's trace context: a no-op unless an OpenTelemetry SDK records.
      const command = startCommandTrace({
        carrier: input.traceHeaders,
        describe: () => commandSpanAttributes(input),
      });
      let outcome: ExecuteOutcome;
      try {
        outcome = await command.within(() => run(input, command.trace));
      } catch (error) {
        command.end(() => ({ attributes: {}, failed: true, error }));
        throw error;
      }
      command.end(() => outcomeSpanEnd(outcome));
      try {
        options.onOutcome?.(outcome, {
          method: input.request.method.toUpperCase(),
          route: input.request.route,
        });
      } catch {
        // A failing metrics callback must not turn a done command into an error.
      }
      return outcome;
    },
  };
};
