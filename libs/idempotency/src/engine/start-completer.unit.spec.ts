import { randomUUID } from 'node:crypto';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bindCommand, commandHandlers } from '../commands/index.js';
import { keyStreamName } from '../key-log/index.js';
import {
  countIncrementsByKey,
  createFaultInjector,
  createManualClock,
  incrementCounter,
  incrementCounterHandler,
  incrementInput,
  InjectedCrash,
} from '../testing/index.js';
import type { AbandonedKeyResult } from './complete-abandoned-keys.js';
import { createIdempotencyEngine } from './idempotency-engine.js';
import { startCompleter } from './start-completer.js';

const INTERVAL_MS = 1_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A round that waits until `finish` is called, counting how often it started. */
const heldRound = () => {
  let finish: (results: readonly AbandonedKeyResult[]) => void = () => undefined;
  const started = { count: 0 };
  const round = () => {
    started.count += 1;
    return new Promise<readonly AbandonedKeyResult[]>((resolve) => {
      finish = resolve;
    });
  };
  return { round, started, finish: (results: readonly AbandonedKeyResult[]) => finish(results) };
};

describe('startCompleter', () => {
  it('finishes a key its client abandoned, one interval after the start, through the handler its claim names', async () => {
    const clock = createManualClock();
    const faults = createFaultInjector();
    const store = createInMemoryEventStore();
    const engine = createIdempotencyEngine({
      store,
      clock: clock.now,
      leaseMs: 10_000,
      faults: faults.hook,
      protocol: 'phased',
    });
    const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
    const scope = { tenantId: randomUUID(), actorId: randomUUID() };
    const key = randomUUID();
    faults.arm('after-plan');
    await expect(
      engine.execute({ scope, key, ...incrementInput('c1', 1), handler: incrementCounterHandler() }),
    ).rejects.toBeInstanceOf(InjectedCrash);
    clock.advance(10_000);

    const rounds: (readonly AbandonedKeyResult[])[] = [];
    const completer = startCompleter({
      engine,
      handlers,
      intervalMs: INTERVAL_MS,
      onRound: (results) => rounds.push(results),
    });
    try {
      await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1);
      expect(rounds).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      // The timer's round reads and appends through the store's promises: let them run.
      for (let turn = 0; turn < 1_000 && rounds.length === 0; turn++) await new Promise(setImmediate);
      expect(rounds).toHaveLength(1);
      expect(rounds[0]).toEqual([
        {
          keyStream: keyStreamName(scope, key),
          outcome: expect.objectContaining({ kind: 'first', resumed: true }) as unknown,
        },
      ]);
      expect((await countIncrementsByKey(store, 'c1')).get(key)).toBe(1);
      expect(await engine.readKeyState(keyStreamName(scope, key))).toMatchObject({ status: 'completed' });
    } finally {
      await completer.stop();
    }
  });

  it('runs one round at a time: a call or a tick while one runs joins it', async () => {
    const { round, started, finish } = heldRound();
    const completer = startCompleter({ round, intervalMs: INTERVAL_MS });
    const first = completer.runRound();
    const second = completer.runRound();
    await vi.advanceTimersByTimeAsync(3 * INTERVAL_MS);
    expect(started.count).toBe(1);
    finish([]);
    expect(await first).toEqual([]);
    expect(await second).toEqual([]);
    await completer.stop();
  });

  it('tells onError of a failed round, and the next round runs as usual', async () => {
    const errors: unknown[] = [];
    const rounds: (readonly AbandonedKeyResult[])[] = [];
    let calls = 0;
    const completer = startCompleter({
      round: async () => {
        calls += 1;
        if (calls === 1) throw new Error('the store is down');
        return [];
      },
      intervalMs: INTERVAL_MS,
      onError: (error) => errors.push(error),
      onRound: (results) => rounds.push(results),
    });
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(errors).toEqual([new Error('the store is down')]);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(rounds).toEqual([[]]);
    await completer.stop();
  });

  it('a round another process held is not reported', async () => {
    const rounds: (readonly AbandonedKeyResult[])[] = [];
    const completer = startCompleter({
      round: async () => undefined,
      intervalMs: INTERVAL_MS,
      onRound: (results) => rounds.push(results),
    });
    expect(await completer.runRound()).toBeUndefined();
    expect(rounds).toEqual([]);
    await completer.stop();
  });

  it('stops when its signal is aborted, and stop waits for the round in hand', async () => {
    const { round, started, finish } = heldRound();
    const stopping = new AbortController();
    const completer = startCompleter({ round, intervalMs: INTERVAL_MS, signal: stopping.signal });
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(started.count).toBe(1);
    stopping.abort();
    let stopped = false;
    const stop = completer.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish([]);
    await stop;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(10 * INTERVAL_MS);
    expect(started.count).toBe(1);
  });

  it('never starts when its signal is aborted already', async () => {
    const { round, started } = heldRound();
    const completer = startCompleter({ round, intervalMs: INTERVAL_MS, signal: AbortSignal.abort() });
    await vi.advanceTimersByTimeAsync(10 * INTERVAL_MS);
    expect(started.count).toBe(0);
    await completer.stop();
  });
});
