import type { EventStore } from '@once/event-store';
import type { TypedCommand } from '../commands/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import type { RequestFingerprint } from '../key-log/index.js';
import type { CommandHandler, CommandRequest } from './command-handler.js';
import type { EngineProtocol } from './execute-outcome.js';
import type { FaultHook, FaultPoint } from './fault-points.js';

export interface ExecuteInput<Command = unknown> {
  readonly scope: IdempotencyScope;
  /** The client's key, already validated (`parseIdempotencyKeyHeader`). */
  readonly key: string;
  /** What the request fingerprint covers (method, route template, params, body), or the fingerprint a claim recorded. */
  readonly request: CommandRequest | RequestFingerprint;
  /** The typed command the handler gets; recorded in the key's claim so the completer can resume it. */
  readonly command: TypedCommand<Command>;
  readonly handler: CommandHandler<Command>;
  /** Key retention for this route (seconds); overrides the handler's and the engine's. */
  readonly retentionSeconds?: number;
  /**
   * The request's headers, read only for their trace context (`traceparent`, `tracestate`) by the propagator an
   * OpenTelemetry SDK registers, so the command's span joins the caller's trace; never stored.
   */
  readonly traceHeaders?: Readonly<Record<string, unknown>>;
}

/** The settings the protocols share (`IdempotencyEngineOptions` with its defaults filled in). */
export interface EngineSettings {
  readonly store: EventStore;
  readonly clock: () => number;
  readonly random: () => number;
  readonly sleep: (milliseconds: number) => Promise<void>;
  readonly leaseMs: number;
  readonly retentionSeconds: number;
  readonly maxConflictRetries: number;
  readonly retryBaseMs: number;
  readonly faults: FaultHook | undefined;
  readonly allowList: readonly string[];
  /** The keys secret fields' references are an HMAC under: the current one first, then older ones. */
  readonly referenceKeys: readonly Uint8Array[];
}

/** A fault hook threw: the "process" is dead, nothing may run after it, not even clean-up. */
export class CrashSignal {
  constructor(readonly error: unknown) {}
}

/** Runs the fault hook at `point`; a hook that throws becomes a `CrashSignal`. */
export const faultAt = async (
  settings: EngineSettings,
  point: FaultPoint,
  keyStream: string,
  protocol: EngineProtocol,
): Promise<void> => {
  if (!settings.faults) return;
  try {
    await settings.faults(point, { keyStream, protocol });
  } catch (error) {
    throw new CrashSignal(error);
  }
};

/** Waits a full-jitter backoff before the `attempt`-th retry. */
export const backoff = async (settings: EngineSettings, attempt: number): Promise<void> => {
  const cap = settings.retryBaseMs * 2 ** Math.min(attempt, 10);
  await settings.sleep(Math.floor(settings.random() * cap));
};

/** When a lease taken at `now` ends. */
export const leaseExpiresAt = (settings: EngineSettings, now: number): string =>
  new Date(now + settings.leaseMs).toISOString();
