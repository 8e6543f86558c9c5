import type { CommandDefinition, CommandHandlers, CommandInput, TypedCommand } from '../commands/index.js';
import type { CommandHandler, ExecuteOutcome, IdempotencyEngine } from '../engine/index.js';
import { parseIdempotencyKeyHeader } from '../header/index.js';
import type { IdempotencyScope } from '../ids/index.js';
import type { StoredResponse } from '../key-log/index.js';
import { Problem } from '../problems/index.js';
import type { IdempotencyProblemType } from '../problems/index.js';

/** A command a route may run, with the handler bound to it when the route was declared. */
export interface RouteCommand {
  readonly definition: CommandDefinition<unknown>;
  readonly handler: CommandHandler;
}

/** Per-route settings of a command. */
export interface CommandRouteSettings {
  /**
   * The command the route runs, or the commands it may run (cash or card payments on one route): the first whose
   * `fromInput` builds a command from the validated params and body.
   */
  readonly command: CommandDefinition<unknown> | readonly CommandDefinition<unknown>[];
  /** Key retention for this route (seconds); longer for offline-capable routes. */
  readonly retentionSeconds?: number;
}

/** What any HTTP framework hands over of a keyed command request, already authenticated and validated. */
export interface KeyedCommandRequest {
  /** The `Idempotency-Key` header's lines as sent (several lines are refused, not joined). */
  readonly idempotencyKey: string | readonly string[] | undefined;
  /** The caller's tenant and actor; undefined → 401. */
  readonly scope: IdempotencyScope | undefined;
  readonly method: string;
  /** The route template (`/counters/:id/increments`), not the concrete path. */
  readonly route: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly body: unknown;
  /** Key retention for this route (seconds). */
  readonly retentionSeconds?: number;
  /** The request's headers, for its trace context (`traceparent`) only: the command's span joins the caller's trace. */
  readonly traceHeaders?: Readonly<Record<string, unknown>>;
}

/**
 * How a keyed command request ends, before any framework writes it: a stored response (first or replayed), a
 * problem (with the store error behind a 503, for the log), or a command that failed (a 500; its defect for the log).
 */
export type CommandAnswer =
  | { readonly kind: 'response'; readonly response: StoredResponse; readonly replayed: boolean }
  | { readonly kind: 'problem'; readonly problem: Problem; readonly cause?: unknown }
  | { readonly kind: 'failed'; readonly defect: unknown };

/** How the answer maps store errors to problems (a full disk, a statement timeout): none by default. */
export interface AnswerSettings {
  /** The problem a store error of an `unavailable` outcome stands for; `service-unavailable` when none. */
  readonly problemOfStoreError?: (error: unknown) => Problem | undefined;
  /** Whether the app's problem catalogue knows a type (a handler's own problem keeps its type only then). */
  readonly knowsProblem?: (type: string) => boolean;
}

/**
 * The command a route's validated input stands for, as the engine runs it and the key log stores it: built by the
 * first candidate whose definition accepts the input (cash and card payments share a route; their schemas tell them
 * apart). Undefined when none does.
 *
 * @example
 * commandFromInput([{ definition: payInvoiceByCash }, { definition: payInvoiceByCard }], { params, body })?.command;
 */
export const commandFromInput = <Candidate extends { readonly definition: CommandDefinition<unknown> }>(
  candidates: readonly Candidate[],
  input: CommandInput,
): { readonly candidate: Candidate; readonly command: TypedCommand } | undefined => {
  for (const candidate of candidates) {
    const { type, version, secretFields, fromInput } = candidate.definition;
    const data = fromInput(input);
    if (data !== undefined) {
      return {
        candidate,
        command: { type, version, data, ...(secretFields?.length ? { secretFields } : {}) },
      };
    }
  }
  return undefined;
};

const problem = (type: IdempotencyProblemType, options?: ConstructorParameters<typeof Problem>[1]) =>
  new Problem<IdempotencyProblemType>(type, options);

/**
 * What an engine outcome answers, whatever the framework: the stored response (replays marked), or the problem for
 * a key in flight (409 with `Retry-After`), a key reused with another request (422), a key used before whose answer
 * has expired (422), a failed command (500) or a store that cannot answer (503 with `Retry-After`).
 *
 * @example
 * const answer = answerOutcome(await engine.execute(request), {});
 */
export const answerOutcome = (outcome: ExecuteOutcome, settings: AnswerSettings = {}): CommandAnswer => {
  switch (outcome.kind) {
    case 'first':
      return { kind: 'response', response: outcome.response, replayed: false };
    case 'replay':
      return { kind: 'response', response: outcome.response, replayed: true };
    case 'in-flight':
      return {
        kind: 'problem',
        problem: problem('idempotency-key-in-flight', {
          extensions: { retryAfterSeconds: outcome.retryAfterSeconds },
          retryAfterSeconds: outcome.retryAfterSeconds,
        }),
      };
    case 'reused':
      return {
        kind: 'problem',
        problem: problem('idempotency-key-reused', {
          detail: `the key was first used for ${outcome.original.method} ${outcome.original.route} with another body`,
        }),
      };
    case 'expired':
      return {
        kind: 'problem',
        problem: problem('idempotency-key-expired', {
          detail: 'the key was used before: its effect is recorded and its answer is no longer kept',
        }),
      };
    case 'released':
      if (outcome.response !== undefined)
        return { kind: 'response', response: outcome.response, replayed: false };
      return { kind: 'failed', defect: outcome.error };
    case 'unavailable': {
      const { error, reason, retryAfterSeconds } = outcome;
      // A handler's own problem (its gateway is down) keeps its type, with the engine's Retry-After.
      if (error instanceof Problem && (settings.knowsProblem?.(error.type) ?? false))
        return { kind: 'problem', problem: new Problem(error.type, { ...error.options, retryAfterSeconds }) };
      const mapped = error === undefined ? undefined : settings.problemOfStoreError?.(error);
      if (mapped !== undefined && (settings.knowsProblem?.(mapped.type) ?? true))
        return { kind: 'problem', problem: mapped, cause: error };
      return {
        kind: 'problem',
        problem: problem('service-unavailable', {
          detail: `retry with the same key (${reason ?? 'store-error'})`,
          retryAfterSeconds,
        }),
        ...(error === undefined ? {} : { cause: error }),
      };
    }
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
};

/**
 * A route's commands with their handlers, bound once when the route is declared (an unbound command throws then).
 *
 * @example
 * const commands = routeCommands({ command: [payInvoiceByCash, payInvoiceByCard] }, handlers);
 */
export const routeCommands = (settings: CommandRouteSettings, handlers: CommandHandlers): RouteCommand[] =>
  (Array.isArray(settings.command) ? settings.command : [settings.command]).map(
    (definition: CommandDefinition<unknown>) => ({ definition, handler: handlers.handlerOf(definition) }),
  );

/**
 * Runs a keyed command request under its `Idempotency-Key`, whatever the framework: parses the key (400 when missing
 * or malformed), needs a scope (401), picks the route's command from the input, runs it once through the engine and
 * answers the outcome. `outcome` is there when the engine ran.
 *
 * @example
 * const { answer } = await runKeyedCommand(engine, [{ definition: increment, handler }], request);
 */
export const runKeyedCommand = async (
  engine: IdempotencyEngine,
  commands: readonly RouteCommand[],
  request: KeyedCommandRequest,
  settings: AnswerSettings = {},
): Promise<{ readonly answer: CommandAnswer; readonly outcome?: ExecuteOutcome }> => {
  const header = parseIdempotencyKeyHeader(request.idempotencyKey);
  if (!header.ok) {
    return {
      answer: {
        kind: 'problem',
        problem: problem(header.problem, {
          detail: `Idempotency-Key: ${header.reason}`,
          extensions: { reason: header.reason },
        }),
      },
    };
  }
  if (request.scope === undefined) return { answer: { kind: 'problem', problem: problem('unauthorized') } };
  // The fingerprint wants plain JSON objects (a framework's params object may have no prototype).
  const params: Record<string, unknown> = { ...request.params };
  const body = request.body ?? null;
  const chosen = commandFromInput(commands, { params, body });
  if (chosen === undefined) {
    return {
      answer: { kind: 'failed', defect: new Error(`no command of ${request.route} accepts this input`) },
    };
  }
  const outcome = await engine.execute({
    scope: request.scope,
    key: header.key,
    request: { method: request.method, route: request.route, params, body },
    command: chosen.command,
    handler: chosen.candidate.handler,
    ...(request.retentionSeconds === undefined ? {} : { retentionSeconds: request.retentionSeconds }),
    ...(request.traceHeaders === undefined ? {} : { traceHeaders: request.traceHeaders }),
  });
  return { answer: answerOutcome(outcome, settings), outcome };
};
