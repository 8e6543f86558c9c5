import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, useTestApi } from './testing/index.js';

const env = useTestApi();

let invoiceId: string;

beforeAll(async () => {
  const issued = await env.http.post('/invoices', {
    apiKey: env.tenant.alice,
    key: randomUUID(),
    body: { currency: 'EUR', total: 100_000 },
  });
  invoiceId = issued.json<{ id: string }>().id;
});

const validBody = JSON.stringify({ method: 'cash', amount: 100, currency: 'EUR' });

const send = (headers: readonly (readonly [string, string])[], body: string | Buffer = validBody) =>
  rawRequest(env.api.url, {
    method: 'POST',
    path: `/invoices/${invoiceId}/payments`,
    headers: [['authorization', `Bearer ${env.tenant.alice}`], ...headers],
    body,
  });

/** The key was never claimed: a valid request with it now is a first execution, not a replay. */
const expectNothingStored = async (key: string) => {
  const valid = await send([
    ['content-type', 'application/json'],
    ['idempotency-key', key],
  ]);
  expect(valid.status).toBe(201);
  expect(valid.headers['idempotent-replayed']).toBeUndefined();
};

const expectProblem = (
  answer: { status: number; headers: Record<string, unknown>; text: string },
  status: number,
  type: string,
) => {
  expect(answer.status).toBe(status);
  expect(String(answer.headers['content-type'])).toContain('application/problem+json');
  expect(JSON.parse(answer.text)).toMatchObject({ type: `/problems/${type}`, status });
};

describe('Idempotency-Key header abuse', () => {
  it('answers a missing key with 400 and a describedby link', async () => {
    const answer = await send([['content-type', 'application/json']]);
    expectProblem(answer, 400, 'idempotency-key-missing');
    expect(answer.headers['link']).toContain('rel="describedby"');
  });

  it.each([
    ['too short', 'short'],
    ['too long', 'k'.repeat(256)],
    ['a list', 'aaaaaaaa-1, bbbbbbbb-2'],
    ['with parameters', '"aaaaaaaa-1";x=1'],
    ['unterminated quote', '"aaaaaaaa-1'],
    ['with spaces inside', 'aaaa aaaa-1'],
  ])('refuses a key that is %s with 400 idempotency-key-invalid', async (_name, key) => {
    expectProblem(
      await send([
        ['content-type', 'application/json'],
        ['idempotency-key', key],
      ]),
      400,
      'idempotency-key-invalid',
    );
  });

  it('refuses a key sent on two header lines, and stores nothing for it', async () => {
    const key = `dup-${randomUUID()}`;
    const answer = await send([
      ['content-type', 'application/json'],
      ['idempotency-key', key],
      ['idempotency-key', key],
    ]);
    expectProblem(answer, 400, 'idempotency-key-invalid');
    await expectNothingStored(key);
  });

  it('accepts the quoted (sf-string) and the bare form as the same key', async () => {
    const key = randomUUID();
    const bare = await send([
      ['content-type', 'application/json'],
      ['idempotency-key', key],
    ]);
    const quoted = await send([
      ['content-type', 'application/json'],
      ['idempotency-key', `"${key}"`],
    ]);
    expect(bare.status).toBe(201);
    expect(quoted.text).toBe(bare.text);
    expect(quoted.headers['idempotent-replayed']).toBe('true');
  });
});

describe('body abuse', () => {
  const cases: readonly [string, readonly (readonly [string, string])[], string | Buffer, number, string][] =
    [
      ['invalid JSON', [['content-type', 'application/json']], '{"method":"cash",', 400, 'invalid-json'],
      ['an empty body', [['content-type', 'application/json']], '', 400, 'invalid-json'],
      [
        'duplicate keys',
        [['content-type', 'application/json']],
        '{"method":"cash","amount":100,"amount":1,"currency":"EUR"}',
        400,
        'invalid-json',
      ],
      [
        'nesting deeper than 64',
        [['content-type', 'application/json']],
        `${'['.repeat(65)}${']'.repeat(65)}`,
        400,
        'invalid-json',
      ],
      [
        'a huge body',
        [['content-type', 'application/json']],
        Buffer.alloc(200 * 1024, 0x20),
        413,
        'body-too-large',
      ],
      [
        'unknown fields',
        [['content-type', 'application/json']],
        '{"method":"cash","amount":100,"currency":"EUR","tip":5}',
        400,
        'invalid-request',
      ],
      [
        'a negative amount',
        [['content-type', 'application/json']],
        '{"method":"cash","amount":-100,"currency":"EUR"}',
        400,
        'invalid-request',
      ],
      [
        'a fractional amount',
        [['content-type', 'application/json']],
        '{"method":"cash","amount":10.5,"currency":"EUR"}',
        400,
        'invalid-request',
      ],
      [
        'an amount as a string',
        [['content-type', 'application/json']],
        '{"method":"cash","amount":"100","currency":"EUR"}',
        400,
        'invalid-request',
      ],
      [
        'an unknown method',
        [['content-type', 'application/json']],
        '{"method":"iou","amount":100,"currency":"EUR"}',
        400,
        'invalid-request',
      ],
      ['a JSON array', [['content-type', 'application/json']], '[1,2,3]', 400, 'invalid-request'],
      ['the wrong content type', [['content-type', 'text/plain']], validBody, 415, 'unsupported-media-type'],
      [
        'form encoding',
        [['content-type', 'application/x-www-form-urlencoded']],
        'method=cash&amount=100',
        415,
        'unsupported-media-type',
      ],
    ];

  it.each(cases)(
    'answers %s with a documented 4xx and stores nothing',
    async (_name, headers, body, status, type) => {
      const key = randomUUID();
      expectProblem(await send([...headers, ['idempotency-key', key]], body), status, type);
      await expectNothingStored(key);
    },
  );

  it('refuses a path id that is not a UUID', async () => {
    const answer = await env.http.post('/invoices/not-a-uuid/payments', {
      apiKey: env.tenant.alice,
      key: randomUUID(),
      body: { method: 'cash', amount: 1, currency: 'EUR' },
    });
    expect(answer.status).toBe(400);
  });

  it('is still up and healthy after all of it', async () => {
    expect((await env.http.get('/health')).status).toBe(200);
    const metrics = await (await env.http.get('/metrics')).text;
    expect(metrics).not.toMatch(/status_code="5\d\d"/);
  });
});
