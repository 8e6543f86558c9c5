import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createEventStoreDbEventStore } from '@once/event-store/eventstoredb';
import type { EventStore } from '@once/event-store';
import { startWireEventStoreDb } from '@once/event-store/testing';
import { createIdempotencyEngine } from '@once/idempotency';
import type { CommandHandler } from '@once/idempotency';
import type { IncrementCounter } from '@once/idempotency/testing';
import {
  chargedIncrementHandler,
  createFakeGateway,
  incrementCounterHandler,
  incrementInput,
} from '@once/idempotency/testing';
import { startEmbeddedPostgres } from '@once/postgres';
import { EventStoreDBClient } from '@eventstore/db-client';
import pg from 'pg';
import { countingEventStoreDbClient } from './round-trips/counting-eventstoredb-client.js';
import { countingPool } from './round-trips/counting-pool.js';
import { createRoundTripCounter } from './round-trips/round-trip-counter.js';
import type { RoundTripOperation } from './round-trips/round-trip-counter.js';

/** Round trips of one command: the total, and per port operation. */
export interface CommandRoundTrips {
  readonly total: number;
  readonly by_operation: Partial<Record<RoundTripOperation, number>>;
}

/** What `npm run bench -- round-trips` writes to tools/bench/results/round-trips.json. */
export interface RoundTripsBenchResult {
  readonly modes: Record<string, Record<string, CommandRoundTrips>>;
  readonly commands: Record<string, string>;
  readonly runs_per_command: number;
  readonly measured_at: string;
}

const RUNS = 5;

const commands = {
  cash: 'a cash-shaped payment: one decision on one aggregate, no external call (the engine suite counter increment)',
  card: 'a card-shaped payment: reserve, a gateway charge as a recorded step, record the capture (the engine suite charged increment)',
  replay: 'the cash-shaped command repeated with its key: the stored answer',
};

/** Counts the round trips the store reports while `run` executes; the counts of every run must agree. */
const counted = async (
  counts: Map<RoundTripOperation, number>,
  run: () => Promise<void>,
): Promise<CommandRoundTrips> => {
  const totals: CommandRoundTrips[] = [];
  for (let index = 0; index < RUNS; index++) {
    counts.clear();
    await run();
    totals.push({
      total: [...counts.values()].reduce((sum, count) => sum + count, 0),
      by_operation: Object.fromEntries(counts),
    });
  }
  const first = totals[0] as CommandRoundTrips;
  if (totals.some((total) => JSON.stringify(total) !== JSON.stringify(first)))
    throw new Error(`round trips differ between runs: ${JSON.stringify(totals)}`);
  return first;
};

/** The three commands through the engine on one store, first requests with fresh keys. */
const measure = async (
  store: EventStore,
  counts: Map<RoundTripOperation, number>,
  protocol: 'auto' | 'phased',
): Promise<Record<string, CommandRoundTrips>> => {
  const engine = createIdempotencyEngine({ store, protocol });
  const scope = { tenantId: randomUUID(), actorId: randomUUID() };
  const execute = async (
    handler: CommandHandler<IncrementCounter>,
    key = randomUUID(),
    counterId = randomUUID(),
  ): Promise<string> => {
    const outcome = await engine.execute({ scope, key, ...incrementInput(counterId, 1), handler });
    if (outcome.kind !== 'first' && outcome.kind !== 'replay') throw new Error(`answered ${outcome.kind}`);
    return key;
  };
  const cash = incrementCounterHandler();
  const card = chargedIncrementHandler(createFakeGateway());
  const replayKey = randomUUID();
  const replayCounter = randomUUID();
  await execute(cash, replayKey, replayCounter);
  return {
    cash: await counted(counts, async () => void (await execute(cash))),
    card: await counted(counts, async () => void (await execute(card))),
    replay: await counted(counts, async () => {
      const outcome = await engine.execute({
        scope,
        key: replayKey,
        ...incrementInput(replayCounter, 1),
        handler: cash,
      });
      if (outcome.kind !== 'replay') throw new Error(`answered ${outcome.kind}`);
    }),
  };
};

/**
 * Round trips per command, counted from outside the adapters (a statement through the pool on PostgreSQL, a gRPC
 * call of the client on EventStoreDB, each for the port operation running: `round-trips/`): on
 * PostgreSQL with the atomic protocol where it applies, on PostgreSQL forced phased, and on EventStoreDB through the
 * real client and the wire-level test server (in memory: a count, never a speed). Deterministic, so one run each.
 */
export const runRoundTripsBench = async (
  log: (line: string) => void = () => undefined,
): Promise<RoundTripsBenchResult> => {
  const server = await startEmbeddedPostgres();
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 4 });
  pool.on('error', () => undefined);
  const wire = await startWireEventStoreDb();
  try {
    const modes: Record<string, Record<string, CommandRoundTrips>> = {};
    for (const [mode, protocol] of [
      ['postgres-atomic', 'auto'],
      ['postgres-phased', 'phased'],
    ] as const) {
      const counter = createRoundTripCounter();
      const store = createPostgresEventStore(countingPool(pool, counter));
      modes[mode] = await measure(counter.around(store), counter.counts, protocol);
      await store.close();
      log(`${mode}: ${JSON.stringify(modes[mode])}`);
    }
    const counter = createRoundTripCounter();
    const client = EventStoreDBClient.connectionString(wire.connectionString);
    const store = createEventStoreDbEventStore(countingEventStoreDbClient(client, counter));
    modes['eventstoredb-phased'] = await measure(counter.around(store), counter.counts, 'auto');
    await store.close();
    await client.dispose();
    log(`eventstoredb-phased: ${JSON.stringify(modes['eventstoredb-phased'])}`);

    const result: RoundTripsBenchResult = {
      modes,
      commands,
      runs_per_command: RUNS,
      measured_at: new Date().toISOString(),
    };
    const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'round-trips.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
    return result;
  } finally {
    await wire.stop();
    await pool.end();
    await server.stop();
  }
};

export const run = async (): Promise<void> => {
  const result = await runRoundTripsBench(console.log);
  const rows = Object.entries(result.modes).flatMap(([mode, perCommand]) =>
    Object.entries(perCommand).map(([command, trips]) => ({ mode, command, round_trips: trips.total })),
  );
  console.table(rows);
};
