import type { GlobalPosition } from '@once/event-store';
import type { CommandHandler } from './command-handler.js';
import type { CommandHandlers, TypedCommand } from '../commands/index.js';
import { KEY_STREAM_PREFIX } from '../key-log/index.js';
import type { KeyInFlight } from '../key-log/index.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { IdempotencyEngine } from './idempotency-engine.js';

export interface CompleteAbandonedKeysOptions {
  readonly engine: IdempotencyEngine;
  /**
   * Every command's handler by type, and the upcasters of its older versions; keys whose recorded command has no
   * handler here, or a version no upcaster leads on from, are skipped.
   */
  readonly handlers: CommandHandlers;
  /**
   * Key streams to look at (e.g. from the `idempotency_keys` projection). When omitted, the global log is read
   * from `after` filtered by the `idem-` prefix, and every key whose last event leaves it in flight is a candidate.
   */
  readonly candidates?: readonly string[];
  readonly after?: GlobalPosition;
  /** Only keys whose lease ended before this time (epoch ms). Default: the engine's clock. */
  readonly now?: number;
}

export type AbandonedKeyResult =
  | { readonly keyStream: string; readonly outcome: ExecuteOutcome }
  | { readonly keyStream: string; readonly skipped: 'not-in-flight' | 'lease-live' }
  | {
      readonly keyStream: string;
      readonly skipped: 'no-handler';
      /** The command type its claim recorded. */
      readonly commandType: string;
    };

/**
 * The command a key's claim recorded, upcast to the version its definition has now, and the handler that resumes it;
 * or the command type that has none here, or whose recorded version no upcaster leads on from (a key only an operator
 * can settle: the completer passes over it and reports it).
 *
 * @example
 * const resume = resumeOf(state.claim, handlers);
 * if (resume.kind === 'unresumable') report(resume.commandType);
 */
export const resumeOf = (
  claim: KeyInFlight['claim'],
  handlers: CommandHandlers,
):
  | { readonly kind: 'resumable'; readonly command: TypedCommand; readonly handler: CommandHandler }
  | { readonly kind: 'unresumable'; readonly commandType: string } => {
  const recorded: TypedCommand = {
    type: claim.commandType,
    version: claim.commandVersion,
    data: claim.command,
  };
  const handler: CommandHandler | undefined = handlers.byType(recorded.type);
  const command = handler === undefined ? undefined : handlers.upcast(recorded);
  return command === undefined || handler === undefined
    ? { kind: 'unresumable', commandType: recorded.type }
    : { kind: 'resumable', command, handler };
};

const finalTypes = new Set(['IdempotencyKeyCompleted', 'IdempotencyKeyReleased']);

const scanInFlightKeys = async (
  engine: IdempotencyEngine,
  after: GlobalPosition | undefined,
): Promise<string[]> => {
  const lastType = new Map<string, string>();
  let checkpoint = after;
  for (;;) {
    const batch = await engine.store.readAll({
      ...(checkpoint === undefined ? {} : { after: checkpoint }),
      filter: { streamPrefixes: [KEY_STREAM_PREFIX] },
      maxCount: 1_000,
    });
    for (const event of batch.events) lastType.set(event.stream, event.type);
    checkpoint = batch.checkpoint ?? checkpoint;
    if (batch.caughtUp || batch.events.length === 0) break;
  }
  return [...lastType].filter(([, type]) => !finalTypes.has(type)).map(([stream]) => stream);
};

/**
 * Finds keys left in flight whose lease has expired (their client crashed or gave up) and finishes them without
 * a client, from their recovery point, exactly as a retry would: the handler comes from the command type the claim
 * recorded, the fingerprint is the claim's own.
 *
 * @example
 * const results = await completeAbandonedKeys({ engine, handlers });
 */
export const completeAbandonedKeys = async (
  options: CompleteAbandonedKeysOptions,
): Promise<AbandonedKeyResult[]> => {
  const { engine } = options;
  const candidates = options.candidates ?? (await scanInFlightKeys(engine, options.after));
  const results: AbandonedKeyResult[] = [];
  for (const keyStream of candidates) {
    const state = await engine.readKeyState(keyStream);
    if (state.status !== 'inFlight') {
      results.push({ keyStream, skipped: 'not-in-flight' });
      continue;
    }
    if ((options.now ?? engine.now()) < state.leaseExpiresAt) {
      results.push({ keyStream, skipped: 'lease-live' });
      continue;
    }
    const { claim } = state;
    const resume = resumeOf(claim, options.handlers);
    if (resume.kind === 'unresumable') {
      results.push({ keyStream, skipped: 'no-handler', commandType: resume.commandType });
      continue;
    }
    const { command, handler } = resume;
    const outcome = await engine.execute({
      scope: { tenantId: claim.tenantId, actorId: claim.actorId },
      key: claim.key,
      request: { method: claim.method, route: claim.route, requestHash: claim.requestHash },
      command,
      handler,
    });
    results.push({ keyStream, outcome });
  }
  return results;
};
