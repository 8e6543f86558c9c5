import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError } from '@once/event-store';
import type { EventStore } from '@once/event-store';
import { defaultResponseHeaderAllowList, toStoredResponse } from '@once/idempotency';
import type {
  CommandContext,
  ExecuteInput,
  HandlerResponse,
  IdempotencyEngine,
  IdempotencyEngineOptions,
  PhasedCommandContext,
  StreamSnapshot,
  StreamWrite,
} from '@once/idempotency';

const readSnapshots = async (
  store: EventStore,
  streams: readonly string[],
): Promise<Map<string, StreamSnapshot>> => {
  const unique = [...new Set(streams)];
  const read = await Promise.all(unique.map((stream) => store.readStream(stream)));
  return new Map(
    unique.map((stream, index) => {
      const events = read[index] ?? [];
      const last = events.at(-1);
      return [
        stream,
        { stream, events, revision: last === undefined ? 'no_stream' : last.revision },
      ] as const;
    }),
  );
};

const append = async (
  store: EventStore,
  writes: readonly StreamWrite[],
  snapshots: Map<string, StreamSnapshot>,
): Promise<void> => {
  const appends = writes
    .filter((write) => write.events.length > 0)
    .map((write) => ({
      stream: write.stream,
      expectedRevision: snapshots.get(write.stream)?.revision ?? 'no_stream',
      events: write.events.map((event) => ({ id: randomUUID(), ...event })),
    }));
  if (appends.length === 1 && appends[0]) {
    await store.appendToStream(appends[0].stream, appends[0].events, {
      expectedRevision: appends[0].expectedRevision,
    });
  } else if (appends.length > 1) {
    await store.appendMulti(appends);
  }
};

/** Re-reads and re-decides after a concurrent writer moved the stream, like the engine does. */
const withConflictRetries = async <T>(attempt: () => Promise<T>): Promise<T> => {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || tries >= 5) throw error;
    }
  }
};

const runHandler = async (store: EventStore, input: ExecuteInput): Promise<HandlerResponse> => {
  const ids = new Map<string, string>();
  const context: CommandContext = {
    scope: input.scope,
    key: input.key,
    command: input.command.data,
    requestedAt: new Date(),
    ids: {
      next: (purpose, index = 0) => {
        const name = `${purpose}/${String(index)}`;
        const id = ids.get(name) ?? randomUUID();
        ids.set(name, id);
        return id;
      },
    },
  };
  const { handler } = input;
  if (handler.kind === 'decide') {
    return withConflictRetries(async () => {
      const snapshots = await readSnapshots(store, handler.streams(context));
      const decision = handler.decide(context, snapshots);
      if (decision.kind === 'accept') await append(store, decision.writes, snapshots);
      return decision.response;
    });
  }
  const phased: PhasedCommandContext = {
    ...context,
    effect: (_name, spec) =>
      withConflictRetries(async () => {
        const snapshots = await readSnapshots(store, spec.streams);
        const decision = spec.decide(snapshots);
        if (decision.kind === 'reject') return { kind: 'rejected', response: decision.response };
        await append(store, decision.writes, snapshots);
        return { kind: 'applied', result: decision.result };
      }),
    step: (_name, run) => run({ resumed: false }),
  };
  return handler.run(phased);
};

/**
 * The benchmark's unkeyed side: an engine with the same face that runs each command's handler straight against the
 * store, with no key log (random ids, a retry is a new command), so the HTTP bench measures what the idempotency
 * layer costs with everything else (routes, schemas, handlers, plugins) the same.
 */
export const createPlainEngine = (options: IdempotencyEngineOptions): IdempotencyEngine => {
  const { store } = options;
  const engine: IdempotencyEngine = {
    store,
    now: () => Date.now(),
    readKeyState: async () => ({ status: 'absent' }),
    execute: async (typed) => {
      // Handler and command were typed together by the route; this engine only passes one to the other.
      const input = typed as unknown as ExecuteInput;
      const response = await runHandler(store, input);
      return {
        kind: 'first',
        response: toStoredResponse(response, defaultResponseHeaderAllowList),
        protocol: 'atomic',
        resumed: false,
      };
    },
  };
  plainEngines.add(engine);
  return engine;
};

const plainEngines = new WeakSet<IdempotencyEngine>();

/** Whether `engine` is one `createPlainEngine` made. */
export const isPlainEngine = (engine: IdempotencyEngine): boolean => plainEngines.has(engine);
