import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import type {
  Attributes,
  Context,
  ContextManager,
  Span,
  SpanAttributeValue,
  SpanContext,
  SpanOptions,
  SpanStatus,
  TextMapGetter,
  TextMapPropagator,
  TextMapSetter,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import Fastify from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bindCommand, commandHandlers } from '../commands/index.js';
import type { CommandHandler } from '../engine/index.js';
import { createIdempotencyEngine, defineDecideHandler } from '../engine/index.js';
import { idempotencyFastifyPlugin } from '../fastify/index.js';
import {
  chargedIncrementHandler,
  COUNTER_ROUTE,
  counterStream,
  createFakeGateway,
  incrementCounter,
  incrementCounterHandler,
} from '../testing/index.js';
import type { IncrementCounter } from '../testing/index.js';

// An in-memory tracer and a W3C traceparent propagator, as small as the API lets them be: what an SDK would register,
// without an SDK. The engine must find both through the global API alone.

interface RecordedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Attributes;
  status: SpanStatus | undefined;
  ended: boolean;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

const recordingTracer = (finished: RecordedSpan[]): Tracer => {
  const startSpan = (name: string, options: SpanOptions = {}, parentContext = context.active()): Span => {
    const parent = trace.getSpanContext(parentContext);
    const spanContext: SpanContext = {
      traceId: parent?.traceId ?? hex(16),
      spanId: hex(8),
      traceFlags: TraceFlags.SAMPLED,
    };
    const recorded: RecordedSpan = {
      name,
      traceId: spanContext.traceId,
      spanId: spanContext.spanId,
      parentSpanId: parent?.spanId,
      attributes: { ...options.attributes },
      status: undefined,
      ended: false,
    };
    const span: Span = {
      spanContext: () => spanContext,
      setAttribute: (key: string, value: SpanAttributeValue) => {
        recorded.attributes[key] = value;
        return span;
      },
      setAttributes: (attributes) => {
        Object.assign(recorded.attributes, attributes);
        return span;
      },
      addEvent: () => span,
      addLink: () => span,
      addLinks: () => span,
      setStatus: (status) => {
        recorded.status = status;
        return span;
      },
      updateName: () => span,
      end: () => {
        recorded.ended = true;
        finished.push(recorded);
      },
      isRecording: () => !recorded.ended,
      recordException: () => undefined,
    };
    return span;
  };
  const startActiveSpan = (name: string, ...rest: unknown[]): unknown => {
    const run = rest.at(-1) as (span: Span) => unknown;
    const span = startSpan(name);
    return context.with(trace.setSpan(context.active(), span), () => run(span));
  };
  return { startSpan, startActiveSpan: startActiveSpan as Tracer['startActiveSpan'] };
};

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

const traceparentPropagator: TextMapPropagator = {
  inject(current: Context, carrier: unknown, setter: TextMapSetter) {
    const span = trace.getSpanContext(current);
    if (span) setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-0${span.traceFlags}`);
  },
  extract(current: Context, carrier: unknown, getter: TextMapGetter) {
    const header = getter.get(carrier, 'traceparent');
    const match = traceparentPattern.exec(Array.isArray(header) ? (header[0] ?? '') : (header ?? ''));
    if (!match) return current;
    const [, traceId = '', spanId = '', flags = '00'] = match;
    return trace.setSpanContext(current, {
      traceId,
      spanId,
      traceFlags: Number.parseInt(flags, 16),
      isRemote: true,
    });
  },
  fields: () => ['traceparent'],
};

/** What an SDK's context manager does on Node: the active context follows the async calls that run in it. */
const asyncContextManager = (): ContextManager => {
  const storage = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (current, run, thisArg, ...args) => storage.run(current, () => run.call(thisArg, ...args)),
    bind: (_current, target) => target,
    enable: () => manager,
    disable: () => {
      storage.disable();
      return manager;
    },
  };
  return manager;
};

const finished: RecordedSpan[] = [];
const provider: TracerProvider = { getTracer: () => recordingTracer(finished) };

const registerTracing = (): void => {
  trace.disable();
  propagation.disable();
  context.disable();
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(traceparentPropagator);
  context.setGlobalContextManager(asyncContextManager());
};
const unregisterTracing = (): void => {
  trace.disable();
  propagation.disable();
  context.disable();
};

const tenantId = 'tenant-traced';
const appWith = async (handler: CommandHandler<IncrementCounter>) => {
  const app = Fastify();
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    Reflect.set(request, 'principal', { tenantId, actorId: 'actor-1' });
  });
  await app.register(idempotencyFastifyPlugin, {
    // Every first request reads its key: the tree below is the protocol as written.
    engine: createIdempotencyEngine({
      store: createInMemoryEventStore({ atomicMultiStreamAppend: true }),
      decideOnKeptEvents: false,
    }),
    handlers: commandHandlers([bindCommand(incrementCounter, handler)]),
  });
  app.command({ url: COUNTER_ROUTE, command: incrementCounter });
  return app;
};

const remoteTraceId = hex(16);
const remoteSpanId = hex(8);
const keyedRequest = (key: string) => ({
  method: 'POST' as const,
  url: '/counters/c1/increments',
  headers: {
    'content-type': 'application/json',
    'idempotency-key': key,
    traceparent: `00-${remoteTraceId}-${remoteSpanId}-01`,
  },
  payload: '{"by":1}',
});

const spansNamed = (name: string): RecordedSpan[] => finished.filter((span) => span.name === name);
const childrenOf = (parent: RecordedSpan): RecordedSpan[] =>
  finished.filter((span) => span.parentSpanId === parent.spanId);
const onlySpan = (name: string): RecordedSpan => {
  const [span, ...others] = spansNamed(name);
  expect(others, name).toEqual([]);
  if (span === undefined) throw new Error(`no ${name} span`);
  return span;
};

describe('the engine traced through @opentelemetry/api', () => {
  beforeAll(registerTracing);
  afterEach(() => {
    finished.length = 0;
  });
  afterAll(unregisterTracing);

  it('spans a keyed command under the caller’s traceparent, its key-log read and append as children', async () => {
    const app = await appWith(incrementCounterHandler());
    const key = randomUUID();
    const response = await app.inject(keyedRequest(key));
    expect(response.statusCode).toBe(201);

    const command = onlySpan('once.command');
    expect(command).toMatchObject({ traceId: remoteTraceId, parentSpanId: remoteSpanId, ended: true });
    expect(command.attributes).toEqual({
      'once.command.type': 'IncrementCounter',
      'once.command.version': 1,
      'http.request.method': 'POST',
      'http.route': COUNTER_ROUTE,
      'once.outcome': 'first',
      'once.protocol': 'atomic',
      'once.resumed': false,
    });
    expect(command.status).toBeUndefined();
    expect(childrenOf(command).map((span) => span.name)).toEqual([
      'once.key_log.read',
      'once.key_log.append',
    ]);
    expect(onlySpan('once.key_log.read').attributes).toEqual({
      'once.key_log.state': 'absent',
      'once.key_log.arrival': 'claim',
      'once.aggregates': 1,
    });
    expect(onlySpan('once.key_log.append').attributes).toEqual({
      'once.key_log.events': ['IdempotencyKeyCompleted'],
      'once.effect.streams': 1,
      'once.key_log.append': 'appended',
    });
    for (const span of finished) {
      expect(span.traceId).toBe(remoteTraceId);
      expect(JSON.stringify(span.attributes)).not.toContain(key);
      expect(JSON.stringify(span.attributes)).not.toContain(tenantId);
    }

    finished.length = 0;
    const replay = await app.inject(keyedRequest(key));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(onlySpan('once.command')).toMatchObject({
      traceId: remoteTraceId,
      parentSpanId: remoteSpanId,
      attributes: expect.objectContaining({ 'once.outcome': 'replay' }) as unknown,
    });
    await app.close();
  });

  it('spans each effect and step of a phased command, their key-log appends inside them', async () => {
    const app = await appWith(chargedIncrementHandler(createFakeGateway()));
    const response = await app.inject(keyedRequest(randomUUID()));
    expect(response.statusCode).toBe(201);

    const command = onlySpan('once.command');
    expect(command).toMatchObject({ traceId: remoteTraceId, parentSpanId: remoteSpanId });
    expect(command.attributes).toMatchObject({ 'once.outcome': 'first', 'once.protocol': 'phased' });
    expect(
      childrenOf(command).map((span) => [
        span.name,
        span.attributes['once.effect.name'] ?? span.attributes['once.step.name'] ?? '',
      ]),
    ).toEqual([
      ['once.key_log.read', ''],
      ['once.key_log.append', ''],
      ['once.effect', 'reserved'],
      ['once.step', 'charge_requested'],
      ['once.effect', 'charge_recorded'],
      ['once.key_log.append', ''],
    ]);
    const [reserved] = spansNamed('once.effect');
    expect(reserved?.attributes).toEqual({
      'once.effect.name': 'reserved',
      'once.effect.planned': false,
      'once.effect.attempts': 1,
      'once.effect.outcome': 'applied',
    });
    expect(childrenOf(reserved as RecordedSpan).map((span) => span.name)).toEqual([
      'once.aggregates.read',
      'once.key_log.append',
    ]);
    const step = onlySpan('once.step');
    expect(step.attributes).toEqual({
      'once.step.name': 'charge_requested',
      'once.step.recorded': false,
      'once.step.resumed': false,
    });
    expect(childrenOf(step).map((span) => span.attributes['once.key_log.events'])).toEqual([
      ['IdempotencyRecoveryPointReached'],
      ['IdempotencyRecoveryPointReached'],
    ]);
    await app.close();
  });

  it('marks a command whose handler failed as an error, by the error’s kind and never its message', async () => {
    const failing = defineDecideHandler<IncrementCounter>({
      streams: ({ command }) => [counterStream(command.counterId)],
      decide: () => {
        throw new RangeError('a message that may carry what the request held');
      },
    });
    const app = await appWith(failing);
    const response = await app.inject(keyedRequest(randomUUID()));
    expect(response.statusCode).toBe(500);
    const command = onlySpan('once.command');
    expect(command.status?.code).toBe(SpanStatusCode.ERROR);
    expect(command.attributes).toMatchObject({
      'once.outcome': 'released',
      'once.outcome.reason': 'handler-error',
      'error.type': 'RangeError',
    });
    expect(JSON.stringify(finished)).not.toContain('a message that may carry');
    await app.close();
  });
});

describe('the engine with no OpenTelemetry SDK registered', () => {
  it('runs the command and records nothing', async () => {
    unregisterTracing();
    const app = await appWith(incrementCounterHandler());
    const response = await app.inject(keyedRequest(randomUUID()));
    expect(response.statusCode).toBe(201);
    expect(finished).toEqual([]);
    await app.close();
  });
});
