import { describe, expect, it } from 'vitest';
import { decideKeyLog } from './key-log.decider.js';
import type { KeyLogDecision, KeyLogInput } from './key-log.decider.js';
import type { KeyLogEvent, RequestFingerprint, StoredResponse } from './key-log.events.js';
import { foldKeyLog, KeyLogCorruptedError } from './key-log.state.js';

/** Given the key's events, when a holder asks, then these events (folding cleanly), a keep, or a refusal. */
const given = (events: readonly KeyLogEvent[]) => ({
  when: (input: KeyLogInput) => ({
    then: (expected: readonly KeyLogEvent[] | KeyLogDecision | typeof KeyLogCorruptedError) => {
      const state = foldKeyLog(events);
      if (expected === KeyLogCorruptedError) {
        expect(() => decideKeyLog(state, input)).toThrow(KeyLogCorruptedError);
        return;
      }
      const decision = decideKeyLog(state, input);
      if (Array.isArray(expected)) {
        expect(decision).toEqual({ kind: 'append', events: expected });
        foldKeyLog([...events, ...(expected as KeyLogEvent[])]);
      } else {
        expect(decision).toEqual(expected);
      }
    },
  }),
});

const request: RequestFingerprint = {
  method: 'POST',
  route: '/counters/:id/increments',
  requestHash: 'ab12',
};
const response: StoredResponse = { status: 201, headers: {}, body: '{"value":1}' };
const claim = {
  tenantId: 't1',
  actorId: 'a1',
  key: 'key-0001',
  commandType: 'IncrementCounter',
  commandVersion: 1,
  command: { counterId: 'c1', by: 1 },
  holder: 'h1',
  claimedAt: '2026-01-01T00:00:00.000Z',
  leaseExpiresAt: '2026-01-01T00:00:30.000Z',
};
const lease = '2026-01-01T00:00:30.000Z';
const plan = { point: 'effect', writes: [], response, holder: 'h1', leaseExpiresAt: lease };

const claimed: KeyLogEvent = { type: 'IdempotencyKeyClaimed', data: { ...request, ...claim } };
const planned: KeyLogEvent = { type: 'IdempotencyEffectPlanned', data: plan };
const completed: KeyLogEvent = {
  type: 'IdempotencyKeyCompleted',
  data: { ...request, response, holder: 'h1' },
};
const released: KeyLogEvent = {
  type: 'IdempotencyKeyReleased',
  data: { reason: 'handler-error', holder: 'h1' },
};

describe('Claim', () => {
  it('claims an absent key alone, or with its plan or its completion in the same append', () => {
    given([]).when({ type: 'Claim', request, claim }).then([claimed]);
    given([])
      .when({ type: 'Claim', request, claim, then: { type: 'Plan', plan } })
      .then([claimed, planned]);
    given([])
      .when({ type: 'Claim', request, claim, then: { type: 'Complete', response } })
      .then([claimed, completed]);
  });

  it('claimed and completed in one commit (atomic), the completion alone names who used the key', () => {
    given([])
      .when({ type: 'Claim', request, claim, then: { type: 'Complete', response }, atomic: true })
      .then([
        {
          type: 'IdempotencyKeyCompleted',
          data: {
            ...request,
            response,
            holder: 'h1',
            claim: { tenantId: 't1', actorId: 'a1', key: 'key-0001' },
          },
        },
      ]);
  });

  it('claims a released key again, never one in flight or completed', () => {
    given([claimed, released])
      .when({ type: 'Claim', request, claim: { ...claim, holder: 'h2' } })
      .then([{ type: 'IdempotencyKeyClaimed', data: { ...request, ...claim, holder: 'h2' } }]);
    given([claimed]).when({ type: 'Claim', request, claim }).then(KeyLogCorruptedError);
    given([claimed, completed]).when({ type: 'Claim', request, claim }).then(KeyLogCorruptedError);
  });
});

describe('TakeOver', () => {
  const now = Date.parse(lease);
  it('takes over a key whose lease has ended, naming the previous holder', () => {
    given([claimed, planned])
      .when({ type: 'TakeOver', holder: 'h2', now, leaseExpiresAt: '2026-01-01T00:01:00.000Z' })
      .then([
        {
          type: 'IdempotencyLeaseTaken',
          data: { holder: 'h2', previousHolder: 'h1', leaseExpiresAt: '2026-01-01T00:01:00.000Z' },
        },
      ]);
  });

  it('refuses a live lease, and a key nobody holds', () => {
    given([claimed])
      .when({ type: 'TakeOver', holder: 'h2', now: now - 1, leaseExpiresAt: lease })
      .then(KeyLogCorruptedError);
    given([]).when({ type: 'TakeOver', holder: 'h2', now, leaseExpiresAt: lease }).then(KeyLogCorruptedError);
  });
});

describe('the holder’s steps', () => {
  it('plans, reaches recovery points and completes while it holds the key', () => {
    given([claimed]).when({ type: 'Plan', plan }).then([planned]);
    given([claimed])
      .when({ type: 'ReachStep', holder: 'h1', point: 'charge', leaseExpiresAt: lease })
      .then([
        {
          type: 'IdempotencyRecoveryPointReached',
          data: { point: 'charge', holder: 'h1', leaseExpiresAt: lease, stage: 'started' },
        },
      ]);
    given([claimed])
      .when({
        type: 'ReachStep',
        holder: 'h1',
        point: 'charge',
        leaseExpiresAt: lease,
        finished: { data: 7 },
      })
      .then([
        {
          type: 'IdempotencyRecoveryPointReached',
          data: { point: 'charge', holder: 'h1', leaseExpiresAt: lease, stage: 'finished', data: 7 },
        },
      ]);
    given([claimed, planned]).when({ type: 'Complete', holder: 'h1', request, response }).then([completed]);
  });

  it('refuses a holder that lost the lease, and a key that is not in flight', () => {
    given([claimed])
      .when({ type: 'Plan', plan: { ...plan, holder: 'h2' } })
      .then(KeyLogCorruptedError);
    given([claimed, completed])
      .when({ type: 'Complete', holder: 'h1', request, response })
      .then(KeyLogCorruptedError);
  });
});

describe('Release', () => {
  it('releases a key whose effects cannot have reached the outside', () => {
    given([claimed])
      .when({ type: 'Release', holder: 'h1', reason: 'handler-error', maybeApplied: false })
      .then([released]);
  });

  it('keeps the key in flight once an effect or a step may have happened', () => {
    given([claimed, planned])
      .when({ type: 'Release', holder: 'h1', reason: 'handler-error', maybeApplied: true })
      .then({ kind: 'keep', reason: 'effects-pending' });
  });
});
