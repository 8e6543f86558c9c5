import { describe, expect, it } from 'vitest';
import { classifyResponse } from './index.js';
import type { ResponseFacts } from './index.js';

const now = Date.parse('2026-11-29T12:00:00Z');
const problem = (status: number, type: string, headers: Record<string, string> = {}): ResponseFacts => ({
  status,
  statusText: '',
  headers: { 'content-type': 'application/problem+json', ...headers },
  bodyText: JSON.stringify({ type, title: type, status }),
});

describe('classifyResponse', () => {
  it('takes 2xx as success, parsing JSON and reading Idempotent-Replayed', () => {
    const first = classifyResponse(
      {
        status: 201,
        statusText: 'Created',
        headers: { 'content-type': 'application/json' },
        bodyText: '{"id":"i-1"}',
      },
      now,
    );
    expect(first).toEqual({ kind: 'succeeded', body: { id: 'i-1' }, replayed: false });
    const replay = classifyResponse(
      { status: 201, statusText: '', headers: { 'idempotent-replayed': 'true' }, bodyText: 'done' },
      now,
    );
    expect(replay).toEqual({ kind: 'succeeded', body: 'done', replayed: true });
  });

  it('retries 5xx, 408, 425, 429 and 409 in flight, with their Retry-After', () => {
    for (const status of [500, 502, 503, 504, 408, 425, 429]) {
      expect(classifyResponse(problem(status, '/problems/unavailable'), now).kind).toBe('retry');
    }
    const inFlight = classifyResponse(
      problem(409, 'https://once.example/problems/idempotency-key-in-flight', { 'retry-after': '1' }),
      now,
    );
    expect(inFlight).toMatchObject({ kind: 'retry', retryAfterMs: 1_000 });
    expect(classifyResponse(problem(409, '/problems/idempotency-key-in-flight'), now).kind).toBe('retry');
  });

  it('never retries 400, 401, 403, 404, 422 or another 409', () => {
    for (const status of [400, 401, 403, 404, 422]) {
      expect(classifyResponse(problem(status, '/problems/x', { 'retry-after': '1' }), now).kind).toBe(
        'rejected',
      );
    }
    expect(classifyResponse(problem(409, '/problems/order-already-completed'), now).kind).toBe('rejected');
  });

  it('keeps 401 and 403 for new credentials and calls every other rejection final', () => {
    expect(classifyResponse(problem(401, '/problems/unauthorized'), now)).toMatchObject({ final: false });
    expect(classifyResponse(problem(403, '/problems/forbidden'), now)).toMatchObject({ final: false });
    expect(classifyResponse(problem(422, '/problems/held-for-review'), now)).toMatchObject({
      kind: 'rejected',
      final: true,
      problem: { type: '/problems/held-for-review', status: 422 },
    });
  });

  it('gives a rejection without a problem document an about:blank one', () => {
    const verdict = classifyResponse(
      { status: 404, statusText: 'Not Found', headers: {}, bodyText: 'nope' },
      now,
    );
    expect(verdict).toEqual({
      kind: 'rejected',
      problem: { type: 'about:blank', status: 404, title: 'Not Found' },
      replayed: false,
      final: true,
    });
  });
});
