import fc from 'fast-check';

/** A request as `rawRequest` sends it. */
export interface FuzzedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

// What an HTTP client may put in a header value: visible ASCII, space and Latin-1 (control characters would be
// refused by the client itself before anything reaches the api).
const headerChar = fc
  .integer({ min: 0x20, max: 0xff })
  .filter((code) => code !== 0x7f)
  .map((code) => String.fromCharCode(code));
const text = (maxLength: number) => fc.string({ unit: headerChar, maxLength });

const routes = [
  '/invoices',
  '/invoices/{id}',
  '/invoices/{id}/payments',
  '/payments/{id}',
  '/orders',
  '/orders/{id}',
  '/orders/{id}/serve',
  '/orders/{id}/complete',
  '/menu',
  '/menu/items/{id}',
  '/stock-counts',
  '/stock-counts/{id}',
  '/stock-counts/{id}/lines',
  '/stock-counts/{id}/post',
  '/idempotency-keys/{id}',
  '/webhooks/gateway',
  '/problems/{id}',
  '/health',
  '/{id}',
];

const digits = (length: number) => fc.bigInt({ min: 0n, max: 10n ** BigInt(length) - 1n }).map(String);

/**
 * Requests that look enough like the api's to reach past its first checks: real routes with fuzzed ids, query
 * strings, every header the api reads (valid, malformed or absent), and bodies from valid commands to junk.
 *
 * @param known the tenant's API key and an invoice that exists, read when the first request is generated
 */
export const fuzzedRequest = (known: {
  readonly apiKey: () => string;
  readonly invoiceId: () => string;
}): fc.Arbitrary<FuzzedRequest> => {
  const id = fc.oneof(
    fc.uuid(),
    fc.constant(null).map(() => known.invoiceId()),
    fc.constant(null).map(() => known.invoiceId()),
    text(60).map(encodeURIComponent),
    fc.constantFrom('..', '%2e%2e', '%00', '%ff', 'a'.repeat(400), 'rate-limited', '-1', '1e309'),
  );
  const path = fc
    .tuple(
      fc.constantFrom(...routes),
      id,
      fc.array(fc.tuple(text(20), text(40)), { maxLength: 4 }),
      fc.boolean(),
    )
    .map(([route, segment, query, raw]) => {
      const search = query.length
        ? `?${query.map(([key, value]) => (raw ? `${key}=${value}` : `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)).join('&')}`
        : '';
      // A raw query may hold characters a request line cannot: those are percent-encoded, the rest kept.
      return (
        route.replace('{id}', segment) + search.replace(/[^\x21-\x7e]/g, (char) => encodeURIComponent(char))
      );
    });
  const json = (value: unknown) => fc.constant(JSON.stringify(value));
  const body = fc.oneof(
    fc
      .record({ currency: fc.constantFrom('EUR', 'USD', 'eur', ''), total: fc.integer() })
      .map((value) => JSON.stringify(value)),
    fc
      .record({
        method: fc.constantFrom('cash', 'voucher', ''),
        amount: fc.integer(),
        currency: fc.constantFrom('EUR', 'XXX'),
      })
      .map((value) => JSON.stringify(value)),
    fc
      .record({
        currency: fc.constant('EUR'),
        lines: fc.array(fc.record({ sku: text(20), quantity: fc.integer() }), {
          maxLength: 3,
        }),
      })
      .map((value) => JSON.stringify(value)),
    fc
      .record({ name: text(30), unitPrice: fc.integer(), currency: fc.constantFrom('EUR', 'eur') })
      .map((value) => JSON.stringify(value)),
    fc.json({ maxDepth: 4 }),
    text(200),
    json({ a: 1, a2: 2 }).map((value) => value.replace('a2', 'a')),
    fc.constantFrom('', '[', '{"__proto__":{"x":1}}', '['.repeat(200) + ']'.repeat(200), '"\\ud800"'),
  );
  // Usually sent (the request gets past the first checks), sometimes left out.
  const header = (name: string, value: fc.Arbitrary<string>) =>
    fc.option(
      value.map((v) => [name, v] as const),
      { nil: undefined, freq: 8 },
    );
  // Usually left out.
  const optionalHeader = (name: string, value: fc.Arbitrary<string>) =>
    fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      { arbitrary: value.map((v) => [name, v] as const), weight: 1 },
    );
  const headers = fc
    .tuple(
      header(
        'authorization',
        fc.oneof(
          { arbitrary: fc.constant(null).map(() => `Bearer ${known.apiKey()}`), weight: 8 },
          { arbitrary: text(80).map((token) => `Bearer ${token}`), weight: 1 },
          { arbitrary: text(80), weight: 1 },
        ),
      ),
      header(
        'idempotency-key',
        fc.oneof(
          { arbitrary: fc.uuid(), weight: 4 },
          { arbitrary: fc.uuid().map((key) => `"${key}"`), weight: 2 },
          { arbitrary: fc.constantFrom('fuzz-key-0001', 'fuzz-key-0002'), weight: 2 },
          { arbitrary: text(300), weight: 2 },
        ),
      ),
      header(
        'content-type',
        fc.oneof(
          { arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8'), weight: 8 },
          { arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded'), weight: 1 },
          { arbitrary: text(60), weight: 1 },
        ),
      ),
      optionalHeader(
        'once-min-position',
        fc.oneof(
          fc.tuple(digits(20), digits(20)).map(([a, b]) => `${a}:${b}`),
          text(60),
        ),
      ),
      optionalHeader('x-request-id', text(200)),
      optionalHeader('webhook-signature', text(120)),
      optionalHeader('webhook-timestamp', fc.oneof(fc.integer().map(String), text(20))),
      optionalHeader('webhook-id', text(60)),
    )
    .map((pairs) => pairs.filter((pair): pair is readonly [string, string] => pair !== undefined));
  const anything = fc.record({
    method: fc.constantFrom(
      'GET',
      'GET',
      'POST',
      'POST',
      'POST',
      'POST',
      'PUT',
      'DELETE',
      'PATCH',
      'OPTIONS',
    ),
    path,
    headers,
    body,
  });
  // Commands that are well formed but for one part: they reach the domain, and some are refused there.
  const nearlyValid = fc
    .tuple(
      fc.constantFrom('/invoices', '/invoices/{id}/payments', '/orders'),
      fc.integer({ min: -5, max: 2_000_000 }),
      fc.constantFrom('EUR', 'USD', 'EUR', 'eur'),
      fc.oneof(fc.uuid(), fc.constantFrom('fuzz-key-0001', 'fuzz-key-0002')),
    )
    .map(([route, amount, currency, key]): FuzzedRequest => {
      const body =
        route === '/invoices'
          ? { currency, total: amount }
          : route === '/orders'
            ? { currency, lines: [{ sku: 'espresso', quantity: 1 }], expectedTotal: amount }
            : { method: 'cash', amount, currency };
      return {
        method: 'POST',
        path: route.replace('{id}', known.invoiceId()),
        headers: [
          ['authorization', `Bearer ${known.apiKey()}`],
          ['content-type', 'application/json'],
          ['idempotency-key', key],
        ],
        body: JSON.stringify(body),
      };
    });
  return fc.oneof({ arbitrary: anything, weight: 7 }, { arbitrary: nearlyValid, weight: 3 });
};
