import type { Context, Span, Tracer } from '@opentelemetry/api';
import { loadOpenTelemetry } from './open-telemetry.js';
import type { OpenTelemetry } from './open-telemetry.js';

/** A span attribute's value: never a key, a scope or a secret, only what says how the command went. */
export type TraceAttributeValue = string | number | boolean | readonly string[];
export type TraceAttributes = Readonly<Record<string, TraceAttributeValue>>;

/** The spans of the engine under a command's span. */
export type EngineSpanName =
  'once.key_log.read' | 'once.key_log.append' | 'once.aggregates.read' | 'once.effect' | 'once.step';

/** A span as the engine writes to it: attributes only. */
export interface TraceSpan {
  set(attributes: TraceAttributes): void;
}

/** A keyed command's span and its children, or nothing at all when no OpenTelemetry SDK records. */
export interface CommandTrace {
  /** Runs `work` in a child span of the command (or of the span `work` runs in); the span ends when it settles. */
  span<Result>(
    name: EngineSpanName,
    work: (span: TraceSpan) => Promise<Result>,
    attributes?: TraceAttributes,
  ): Promise<Result>;
}

/** What starts a command's span: the request's trace context, and what names the command. */
export interface CommandTraceStart {
  /** The request's headers: `traceparent` (and what else the registered propagator reads) link the trace. */
  readonly carrier: Readonly<Record<string, unknown>> | undefined;
  /** What names the command; asked only when its span records. */
  readonly describe: () => TraceAttributes;
}

/** How a command's span ends: what became of it, and whether that is a failure (with its error, if any). */
export interface CommandTraceEnd {
  readonly attributes: TraceAttributes;
  readonly failed: boolean;
  readonly error?: unknown;
}

/** The command's span and how it ends. */
export interface StartedCommandTrace {
  readonly trace: CommandTrace;
  /** Runs the command in its span's context (so spans of the app's own instrumentation nest under it). */
  within<Result>(run: () => Promise<Result>): Promise<Result>;
  /** Ends the command's span with what became of it (asked only when the span records). */
  end(describe: () => CommandTraceEnd): void;
}

const noSpan: TraceSpan = { set: () => undefined };

/** The trace of a command no SDK records: every span is the work alone. */
export const untraced: CommandTrace = { span: (_name, work) => work(noSpan) };

const notStarted: StartedCommandTrace = {
  trace: untraced,
  within: (run) => run(),
  end: () => undefined,
};

const TRACER_NAME = '@once/idempotency';

/** A span's kind of error, never its message (which may carry what a request held). */
const errorType = (error: unknown): string =>
  error instanceof Error ? error.constructor.name : typeof error;

const asAttributes = (attributes: TraceAttributes): Record<string, string | number | boolean | string[]> =>
  Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [name, Array.isArray(value) ? [...value] : value]),
  ) as Record<string, string | number | boolean | string[]>;

const spanOf = (span: Span): TraceSpan => ({
  set: (attributes) => span.setAttributes(asAttributes(attributes)),
});

const recordedTrace = (otel: OpenTelemetry, tracer: Tracer, command: Context): CommandTrace => ({
  span: async (name, work, attributes) => {
    // With a context manager the active context is the span `work` runs in; without one, the command's.
    const active = otel.context.active();
    const parent = otel.trace.getSpan(active) === undefined ? command : active;
    const span = tracer.startSpan(name, attributes ? { attributes: asAttributes(attributes) } : {}, parent);
    try {
      return await otel.context.with(otel.trace.setSpan(parent, span), () => work(spanOf(span)));
    } catch (error) {
      span.setStatus({ code: otel.SpanStatusCode.ERROR });
      span.setAttribute('error.type', errorType(error));
      throw error;
    } finally {
      span.end();
    }
  },
});

/**
 * Creates the tracer of commands over the OpenTelemetry API (loaded once, when installed). With no SDK registered the
 * API is a no-op and so is every span here: the command's span does not record, and no child span is started.
 *
 * @example
 * const startCommandTrace = commandTracer();
 * const command = startCommandTrace({ carrier: request.headers, describe: () => ({ 'once.command.type': 'IssueInvoice' }) });
 * const outcome = await command.within(() => run(command.trace));
 * command.end(() => ({ attributes: { 'once.outcome': outcome.kind }, failed: false }));
 */
export const commandTracer = (
  otel: OpenTelemetry | undefined = loadOpenTelemetry(),
): ((start: CommandTraceStart) => StartedCommandTrace) => {
  if (otel === undefined) return () => notStarted;
  return ({ carrier, describe }) => {
    // Under a span of the app's own (its HTTP server's), that span is the parent; else the request's traceparent.
    const active = otel.context.active();
    const parent =
      otel.trace.getSpan(active) !== undefined || carrier === undefined
        ? active
        : otel.propagation.extract(active, carrier);
    const tracer = otel.trace.getTracer(TRACER_NAME);
    const span = tracer.startSpan('once.command', { kind: otel.SpanKind.INTERNAL }, parent);
    if (!span.isRecording()) {
      span.end();
      return notStarted;
    }
    span.setAttributes(asAttributes(describe()));
    const command = otel.trace.setSpan(parent, span);
    return {
      trace: recordedTrace(otel, tracer, command),
      within: (run) => otel.context.with(command, run),
      end: (describeEnd) => {
        const { attributes, failed, error } = describeEnd();
        span.setAttributes(asAttributes(attributes));
        if (failed) {
          span.setStatus({ code: otel.SpanStatusCode.ERROR });
          if (error !== undefined) span.setAttribute('error.type', errorType(error));
        }
        span.end();
      },
    };
  };
};
