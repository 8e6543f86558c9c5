import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresEventStore } from '@once/event-store/postgres';
import type { EventStore, StreamRevision } from '@once/event-store';
import { createIdempotencyEngine } from '@once/idempotency';
import type { CommandContext, IdempotencyEngine } from '@once/idempotency';
import { incrementCounterHandler, incrementInput } from '@once/idempotency/testing';
import type { IncrementCounter } from '@once/idempotency/testing';
import { startEmbeddedPostgres } from '@once/postgres';
import pg from 'pg';
import { median } from './median.js';

/** What `npm run bench -- engine` writes to tools/bench/results/engine.json. */
export interface EngineBenchResult {
  readonly keyed_per_s: number;
  readonly plain_per_s: number;
  /** Replays read from the key log: by an engine that did not complete the keys (another process, or after 5 minutes). */
  readonly replay_per_s: number;
  /** Replays of keys the engine completed itself in the last 5 minutes, answered from memory. */
  readonly remembered_replay_per_s: number;
  readonly keyed_vs_plain: number;
  readonly replay_vs_keyed: number;
  readonly callers: number;
  readonly seconds_per_phase: number;
  readonly rounds: number;
  readonly postgres: string;
  readonly measured_at: string;
}

const CALLERS = 8;
const SECONDS_PER_PHASE = 4;
const ROUNDS = 3;

const scope = { tenantId: randomUUID(), actorId: randomUUID() };
const handler = incrementCounterHandler();

/** The same decision the engine runs, appended straight to the store: no key, no key log. */
const plainIncrement = async (store: EventStore): Promise<void> => {
  const counterId = randomUUID();
  const context: CommandContext<IncrementCounter> = {
    scope,
    key: randomUUID(),
    command: incrementInput(counterId, 1).command.data,
    requestedAt: new Date(),
    ids: { next: () => randomUUID() },
  };
  const streams = handler.streams(context);
  const read = await Promise.all(streams.map((stream) => store.readStream(stream)));
  const snapshots = new Map(
    streams.map((stream, index) => {
      const events = read[index] ?? [];
      const revision: StreamRevision | 'no_stream' = events.at(-1)?.revision ?? 'no_stream';
      return [stream, { stream, events, revision }] as const;
    }),
  );
  const decision = handler.decide(context, snapshots);
  if (decision.kind !== 'accept') throw new Error('the plain path was rejected');
  for (const write of decision.writes) {
    await store.appendToStream(
      write.stream,
      write.events.map((event) => ({ id: randomUUID(), ...event })),
      { expectedRevision: snapshots.get(write.stream)?.revision ?? 'no_stream' },
    );
  }
  JSON.stringify(decision.response.body);
};

const keyedIncrement = async (engine: IdempotencyEngine, keys: string[]): Promise<void> => {
  const key = randomUUID();
  const outcome = await engine.execute({ scope, key, ...incrementInput(key, 1), handler });
  if (outcome.kind !== 'first') throw new Error(`keyed request answered ${outcome.kind}`);
  keys.push(key);
};

const replay = async (engine: IdempotencyEngine, keys: string[], index: number): Promise<void> => {
  const key = keys[index % keys.length] as string;
  const outcome = await engine.execute({ scope, key, ...incrementInput(key, 1), handler });
  if (outcome.kind !== 'replay') throw new Error(`replay answered ${outcome.kind}`);
};

/** Runs `operation` from `callers` concurrent loops for `seconds`; returns completed operations per second. */
const throughput = async (seconds: number, operation: (index: number) => Promise<void>): Promise<number> => {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let done = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (performance.now() < deadline) {
        await operation(next++);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
};

/**
 * Keyed command throughput against the same decide+append without the engine, and replays against first requests
 * (read from the key log by an engine that did not complete them, and answered from memory by the one that did), in
 * process on embedded PostgreSQL (fsync on), 8 concurrent callers, new keys. Phases alternate round after
 * round and the medians count, so a noisy neighbour on the machine hurts every side alike.
 */
export const runEngineBench = async (
  log: (line: string) => void = () => undefined,
): Promise<EngineBenchResult> => {
  const server = await startEmbeddedPostgres();
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 2 * CALLERS });
  pool.on('error', () => undefined);
  try {
    const store = createPostgresEventStore(pool);
    const engine = createIdempotencyEngine({ store });
    // Another process's engine, which remembers no completed key: its replays read the key log.
    const reading = createIdempotencyEngine({ store, completedKeys: { capacity: 0 } });
    const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
    const keys: string[] = [];
    await throughput(1, () => plainIncrement(store));
    await throughput(1, () => keyedIncrement(engine, keys));
    // Every path a phase measures runs before the rounds: otherwise the first round's replays are the first ever, and
    // pay for V8 learning and compiling their code.
    await throughput(1, (index) => replay(reading, keys, index));
    await throughput(1, (index) => replay(engine, keys.slice(-1_000), index));
    // Statistics as a running service has them, not as autovacuum's next visit (every 5 s on the embedded server)
    // happens to leave them: a generic plan made while the warm-up's first rows went in (a few hundred streams, best
    // hashed whole) is kept until the tables are analyzed again. With a visit a minute, 5 of 10 runs stalled so.
    await pool.query('ANALYZE');
    const plain: number[] = [];
    const keyed: number[] = [];
    const replays: number[] = [];
    const remembered: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      plain.push(await throughput(SECONDS_PER_PHASE, () => plainIncrement(store)));
      log(`round ${round + 1}: plain ${plain.at(-1)?.toFixed(0)}/s`);
      keyed.push(await throughput(SECONDS_PER_PHASE, () => keyedIncrement(engine, keys)));
      log(`round ${round + 1}: keyed ${keyed.at(-1)?.toFixed(0)}/s`);
      replays.push(await throughput(SECONDS_PER_PHASE, (index) => replay(reading, keys, index)));
      log(`round ${round + 1}: replay ${replays.at(-1)?.toFixed(0)}/s`);
      const recent = keys.slice(-1_000);
      remembered.push(await throughput(SECONDS_PER_PHASE, (index) => replay(engine, recent, index)));
      log(`round ${round + 1}: remembered replay ${remembered.at(-1)?.toFixed(0)}/s`);
    }
    const rate = (values: number[]) => Math.round(median(values));
    const result: EngineBenchResult = {
      keyed_per_s: rate(keyed),
      plain_per_s: rate(plain),
      replay_per_s: rate(replays),
      remembered_replay_per_s: rate(remembered),
      keyed_vs_plain: Number((rate(keyed) / rate(plain)).toFixed(2)),
      replay_vs_keyed: Number((rate(replays) / rate(keyed)).toFixed(2)),
      callers: CALLERS,
      seconds_per_phase: SECONDS_PER_PHASE,
      rounds: ROUNDS,
      postgres: `embedded ${rows[0]?.server_version ?? 'unknown'}, fsync on`,
      measured_at: new Date().toISOString(),
    };
    const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'engine.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
    return result;
  } finally {
    await pool.end();
    await server.stop();
  }
};

/** The `npm run bench -- engine` entry. */
export const run = async (): Promise<void> => {
  const result = await runEngineBench((line) => console.log(line));
  console.log(JSON.stringify(result, null, 2));
  console.log(
    `keyed/plain ${result.keyed_vs_plain} (target >= 0.8), replay/keyed ${result.replay_vs_keyed} (target >= 2)`,
  );
};
