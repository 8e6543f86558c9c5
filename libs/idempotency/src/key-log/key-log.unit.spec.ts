import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideArrival } from './key-log.decider.js';
import type { KeyLogEvent, RequestFingerprint, StoredResponse } from './key-log.events.js';
import { evolveKeyState, foldKeyLog, KeyLogCorruptedError } from './key-log.state.js';
import type { KeyState } from './key-log.state.js';
import { keyStreamName } from './key-stream-name.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const fingerprint: RequestFingerprint = {
  method: 'POST',
  route: '/counters/:id',
  requestHash: 'a'.repeat(64),
};
const response: StoredResponse = {
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: '{"n": 1}',
};

const claimed = (holder = 'h1', leaseEndsAt = T0 + 10_000): KeyLogEvent => ({
  type: 'IdempotencyKeyClaimed',
  data: {
    ...fingerprint,
    tenantId: 't1',
    actorId: 'a1',
    key: 'key-12345678',
    commandType: 'IncrementCounter',
    commandVersion: 1,
    command: { counterId: 'c1', by: 1 },
    holder,
    claimedAt: iso(T0),
    leaseExpiresAt: iso(leaseEndsAt),
  },
});
const planned = (point = 'effect'): KeyLogEvent => ({
  type: 'IdempotencyEffectPlanned',
  data: {
    point,
    writes: [
      {
        stream: 'counter-c1',
        expectedRevision: '3',
        eventIds: ['e1'],
        events: [{ id: 'e1', type: 'X', data: {} }],
      },
    ],
    response,
    holder: 'h1',
    leaseExpiresAt: iso(T0 + 20_000),
  },
});
const leaseTaken = (holder: string, leaseEndsAt: number): KeyLogEvent => ({
  type: 'IdempotencyLeaseTaken',
  data: { holder, previousHolder: 'h1', leaseExpiresAt: iso(leaseEndsAt) },
});
const completed: KeyLogEvent = {
  type: 'IdempotencyKeyCompleted',
  data: { ...fingerprint, response, holder: 'h1' },
};
const released: KeyLogEvent = {
  type: 'IdempotencyKeyReleased',
  data: { reason: 'handler-error', holder: 'h1' },
};

const given = (events: KeyLogEvent[]) => ({
  whenArriving: (request: RequestFingerprint, at: number) => decideArrival(foldKeyLog(events), request, at),
});

describe('key log fold', () => {
  it('an absent key is absent', () => {
    expect(foldKeyLog([])).toEqual({ status: 'absent' });
  });

  it('a claim puts the key in flight at recovery point started with its lease', () => {
    const state = foldKeyLog([claimed()]);
    expect(state).toMatchObject({
      status: 'inFlight',
      holder: 'h1',
      leaseExpiresAt: T0 + 10_000,
      recoveryPoint: 'started',
    });
  });

  it('a plan records the plan, moves the recovery point and renews the lease', () => {
    const state = foldKeyLog([claimed(), planned()]);
    expect(state).toMatchObject({ status: 'inFlight', recoveryPoint: 'effect', leaseExpiresAt: T0 + 20_000 });
    expect(state.status === 'inFlight' && state.plans['effect']?.writes[0]?.expectedRevision).toBe('3');
  });

  it('recovery points record started and finished external steps', () => {
    const state = foldKeyLog([
      claimed(),
      {
        type: 'IdempotencyRecoveryPointReached',
        data: { point: 'charge', stage: 'started', holder: 'h1', leaseExpiresAt: iso(T0 + 5) },
      },
      {
        type: 'IdempotencyRecoveryPointReached',
        data: {
          point: 'charge',
          stage: 'finished',
          data: { ok: true },
          holder: 'h1',
          leaseExpiresAt: iso(T0 + 6),
        },
      },
    ]);
    expect(state).toMatchObject({
      status: 'inFlight',
      recoveryPoint: 'charge',
      steps: { charge: { stage: 'finished', data: { ok: true } } },
    });
  });

  it('a lease taken changes the holder and keeps the plans', () => {
    const state = foldKeyLog([claimed(), planned(), leaseTaken('h2', T0 + 50_000)]);
    expect(state).toMatchObject({
      status: 'inFlight',
      holder: 'h2',
      leaseExpiresAt: T0 + 50_000,
      recoveryPoint: 'effect',
    });
  });

  it('completion keeps the fingerprint and the response text', () => {
    expect(foldKeyLog([claimed(), planned(), completed])).toEqual({
      status: 'completed',
      fingerprint,
      response,
    });
  });

  it('a release frees the key and a new claim takes it again', () => {
    expect(foldKeyLog([claimed(), released])).toMatchObject({ status: 'released', reason: 'handler-error' });
    expect(foldKeyLog([claimed(), released, claimed('h3')])).toMatchObject({
      status: 'inFlight',
      holder: 'h3',
    });
  });

  it('a completion whose claim retention already dropped still reads as completed', () => {
    expect(foldKeyLog([completed])).toEqual({ status: 'completed', fingerprint, response });
    expect(foldKeyLog([planned()])).toEqual({ status: 'absent' });
  });

  it('a key claimed and completed in one commit is one completion that names who used the key', () => {
    const atOnce: KeyLogEvent = {
      type: 'IdempotencyKeyCompleted',
      data: { ...fingerprint, response, holder: 'h1', claim: { tenantId: 't1', actorId: 'a1', key: 'k1' } },
    };
    expect(foldKeyLog([atOnce])).toEqual({ status: 'completed', fingerprint, response });
    expect(given([atOnce]).whenArriving(fingerprint, T0)).toMatchObject({ kind: 'replay', response });
    expect(() => foldKeyLog([atOnce, completed])).toThrow(KeyLogCorruptedError);
  });

  it('refuses a second claim, a completion after completion, and holder events after completion', () => {
    expect(() => foldKeyLog([claimed(), claimed('h2')])).toThrow(KeyLogCorruptedError);
    expect(() => foldKeyLog([claimed(), completed, completed])).toThrow(KeyLogCorruptedError);
    expect(() => foldKeyLog([claimed(), completed, planned()])).toThrow(KeyLogCorruptedError);
    expect(() => foldKeyLog([claimed(), released, released])).toThrow(KeyLogCorruptedError);
  });
});

describe('arrival decision', () => {
  const other = { ...fingerprint, requestHash: 'b'.repeat(64) };

  it('claims an absent or released key', () => {
    expect(given([]).whenArriving(fingerprint, T0)).toEqual({ kind: 'claim' });
    expect(given([claimed(), released]).whenArriving(other, T0)).toEqual({ kind: 'claim' });
  });

  it('replays a completed key for the same request', () => {
    expect(given([claimed(), completed]).whenArriving(fingerprint, T0 + 1e9)).toEqual({
      kind: 'replay',
      response,
    });
  });

  it.each([
    ['body', { ...fingerprint, requestHash: 'c'.repeat(64) }],
    ['method', { ...fingerprint, method: 'PATCH' }],
    ['route', { ...fingerprint, route: '/other' }],
  ])('calls a different %s a reuse, completed or in flight', (_what, request) => {
    expect(given([claimed(), completed]).whenArriving(request, T0)).toEqual({
      kind: 'reused',
      original: fingerprint,
    });
    expect(given([claimed()]).whenArriving(request, T0)).toEqual({ kind: 'reused', original: fingerprint });
    expect(given([claimed()]).whenArriving(request, T0 + 1e9)).toMatchObject({ kind: 'reused' });
  });

  it('answers in flight with the seconds left on a live lease (at least 1)', () => {
    expect(given([claimed()]).whenArriving(fingerprint, T0)).toEqual({
      kind: 'in-flight',
      retryAfterSeconds: 10,
    });
    expect(given([claimed()]).whenArriving(fingerprint, T0 + 9_999)).toEqual({
      kind: 'in-flight',
      retryAfterSeconds: 1,
    });
    expect(given([claimed()]).whenArriving(fingerprint, T0 + 8_500)).toEqual({
      kind: 'in-flight',
      retryAfterSeconds: 2,
    });
  });

  it('takes over once the lease has expired, with the recovery point to resume from', () => {
    const decision = given([claimed(), planned()]).whenArriving(fingerprint, T0 + 20_000);
    expect(decision).toMatchObject({ kind: 'take-over', state: { recoveryPoint: 'effect' } });
  });

  it('follows the latest lease after a takeover', () => {
    const events = [claimed(), leaseTaken('h2', T0 + 30_000)];
    expect(given(events).whenArriving(fingerprint, T0 + 20_000)).toMatchObject({ kind: 'in-flight' });
    expect(given(events).whenArriving(fingerprint, T0 + 30_000)).toMatchObject({ kind: 'take-over' });
  });

  it('property: never replays or resumes a different request, never claims a held key', () => {
    const eventArbitrary = fc.constantFrom<KeyLogEvent>(
      claimed(),
      planned(),
      leaseTaken('h2', T0 + 40_000),
      completed,
      released,
    );
    fc.assert(
      fc.property(
        fc.array(eventArbitrary, { maxLength: 8 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 60_000 }),
        (events, same, offset) => {
          let state: KeyState = { status: 'absent' };
          for (const event of events) {
            try {
              state = evolveKeyState(state, event);
            } catch (error) {
              expect(error).toBeInstanceOf(KeyLogCorruptedError);
            }
          }
          const request = same ? fingerprint : other;
          const decision = decideArrival(state, request, T0 + offset);
          if (decision.kind === 'replay' || decision.kind === 'take-over' || decision.kind === 'in-flight') {
            expect(same).toBe(true);
          }
          if (decision.kind === 'claim') expect(['absent', 'released']).toContain(state.status);
          if (state.status === 'inFlight' && T0 + offset < state.leaseExpiresAt) {
            expect(['in-flight', 'reused']).toContain(decision.kind);
          }
        },
      ),
    );
  });
});

describe('keyStreamName', () => {
  it('is scoped by tenant and actor, short, and never contains the raw key', () => {
    const name = keyStreamName({ tenantId: 't1', actorId: 'a1' }, 'secret-key-123');
    expect(name).toMatch(/^idem-[A-Za-z0-9_-]{22}$/);
    expect(name).not.toContain('secret');
    expect(keyStreamName({ tenantId: 't1', actorId: 'a2' }, 'secret-key-123')).not.toBe(name);
    expect(keyStreamName({ tenantId: 't2', actorId: 'a1' }, 'secret-key-123')).not.toBe(name);
    // The parts are kept apart: moving text between tenant, actor and key names another stream.
    expect(keyStreamName({ tenantId: 't1', actorId: 'a1s' }, 'ecret-key-123')).not.toBe(name);
  });

  it('names a key as it always has: stored key streams are found under these names', () => {
    expect(keyStreamName({ tenantId: 't1', actorId: 'a1' }, 'secret-key-123')).toBe(
      'idem-U8Rz6T9GgqtJs8fI5GVoKg',
    );
  });
});
