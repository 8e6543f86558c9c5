import { describe, expect, it } from 'vitest';
import { idempotencyProblems } from './idempotency-problems.js';
import { Problem } from './problem.js';
import { ProblemCatalog } from './problem-catalog.js';

const base = ProblemCatalog.of(
  {
    'key-missing': { status: 400, title: 'Key missing', description: 'Send a key.', describedBy: true },
    busy: { status: 503, title: 'Busy', description: 'Retry later.' },
  },
  { base: 'https://lib.example/problems/' },
);

describe('problem catalogue', () => {
  it('answers a problem with its status, body members in order, and its own headers', () => {
    const answer = base.answer(
      new Problem('busy', {
        detail: 'the store is slow',
        extensions: { reason: 'contention' },
        headers: { 'x-extra': '1' },
        retryAfterSeconds: 3,
      }),
    );
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ 'x-extra': '1', 'retry-after': '3' });
    expect(JSON.stringify(answer.body)).toBe(
      '{"type":"https://lib.example/problems/busy","title":"Busy","status":503,"detail":"the store is slow","reason":"contention"}',
    );
  });

  it('links a describedBy type to its page, and leaves out an empty detail', () => {
    const answer = base.answer(new Problem('key-missing'));
    expect(answer.headers).toEqual({ link: '<https://lib.example/problems/key-missing>; rel="describedby"' });
    expect(answer.body).toEqual({
      type: 'https://lib.example/problems/key-missing',
      title: 'Key missing',
      status: 400,
    });
  });

  it('extends with new types and new words for known ones, keeping their status and Link, in the new order', () => {
    const app = base
      .extend(
        {
          'not-found': { status: 404, title: 'Not found', description: 'No such thing.' },
          'key-missing': { title: 'Idempotency-Key is missing', description: 'Every POST needs one.' },
        },
        { base: '/problems/', link: (uri) => `<${uri}>; rel="describedby"; type="text/html"` },
      )
      .extend({ 'order-not-found': { status: 404, title: 'No such order', description: 'Never placed.' } });
    expect(app.entries().map(([type]) => type)).toEqual([
      'busy',
      'not-found',
      'key-missing',
      'order-not-found',
    ]);
    expect(app.describe('key-missing')).toEqual({
      status: 400,
      title: 'Idempotency-Key is missing',
      description: 'Every POST needs one.',
      describedBy: true,
    });
    const answer = app.answer(new Problem('key-missing'));
    expect(answer.headers).toEqual({ link: '</problems/key-missing>; rel="describedby"; type="text/html"' });
    expect(answer.body.type).toBe('/problems/key-missing');
    expect(base.uri('key-missing')).toBe('https://lib.example/problems/key-missing');
  });

  it('knows only its own types', () => {
    expect(base.has('busy')).toBe(true);
    expect(base.has('nope')).toBe(false);
    expect(() => base.answer(new Problem('nope' as 'busy'))).toThrow(/nope/);
  });

  it('documents every problem the idempotency layer answers with', () => {
    expect(idempotencyProblems.entries().map(([type, problem]) => [type, problem.status])).toEqual([
      ['idempotency-key-missing', 400],
      ['idempotency-key-invalid', 400],
      ['idempotency-key-in-flight', 409],
      ['idempotency-key-reused', 422],
      ['idempotency-key-expired', 422],
      ['internal', 500],
      ['service-unavailable', 503],
      ['unauthorized', 401],
    ]);
  });
});
