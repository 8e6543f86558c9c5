import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerNamed, operationsOf, useTestApi } from '../testing/index.js';
import type { OpenApi, OpenApiOperation, OpenApiResponse } from '../testing/index.js';

const rateLimits = {
  perAddress: { max: 10_000, windowMs: 60_000 },
  perTenant: { max: 10_000, windowMs: 60_000 },
};

const env = useTestApi({ operations: { rateLimits } });

// The writes that take no Idempotency-Key, and why each is safe without one. Every other operation that is not a
// read must be a command: a new route that forgets the key fails here until it is listed with its reason.
const unkeyedWrites = new Map([
  ['receiveGatewayEvent', 'the gateway signs each event; the inbox applies it once per event id'],
  ['redeliverWebhookMessage', 'delivering a message again is what a repeat asks for'],
  ['replayWebhookEvents', 'delivering the range again is what a repeat asks for'],
  ['deleteWebhookMessage', 'a second delete finds the message gone: the same end state'],
]);

const problemRef = '#/components/schemas/Problem';

const errorStatuses = (operation: OpenApiOperation): [string, OpenApiResponse][] =>
  Object.entries(operation.responses).filter(([status]) => /^[45]\d\d$/.test(status));

describe('the served OpenAPI document', () => {
  let document: OpenApi;
  beforeAll(async () => {
    document = (await (await fetch(`${env.api.url}/docs/json`)).json()) as OpenApi;
  });

  it('names every operation with a unique camelCase operationId', () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(30);
    for (const { name, operation } of operations)
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z0-9]*$/);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/invoices/{id}/payments']?.['post']?.operationId).toBe('payInvoice');
  });

  it('takes its version from the api package', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(document.info.version).toBe(manifest.version);
  });

  it('requires Idempotency-Key on every command, and every write but the listed ones is a command', () => {
    const commands = operationsOf(document).filter(({ operation }) => operation['x-once-command'] === true);
    expect(commands.map(({ name }) => name)).toEqual(
      expect.arrayContaining([
        'post /invoices/{id}/payments',
        'put /menu/items/{sku}',
        'delete /menu/items/{sku}',
      ]),
    );
    for (const { name, operation } of commands) {
      const key = operation.parameters?.find(
        (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
      );
      expect(key?.required, name).toBe(true);
    }
    const writes = operationsOf(document).filter(({ method }) => method !== 'get' && method !== 'head');
    for (const { name, operation } of writes) {
      if (unkeyedWrites.has(operation.operationId ?? '')) continue;
      expect(operation['x-once-command'], `${name} is a write without an Idempotency-Key`).toBe(true);
    }
  });

  it('declares the headers each command answer carries', () => {
    const commands = operationsOf(document).filter(({ operation }) => operation['x-once-command'] === true);
    for (const { name, operation } of commands) {
      const successes = Object.entries(operation.responses).filter(([status]) => /^2\d\d$/.test(status));
      expect(successes.length, name).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        expect(headerNamed(response, 'Once-Position'), `${name} ${status}`).toBeDefined();
        expect(headerNamed(response, 'Idempotent-Replayed'), `${name} ${status}`).toBeDefined();
      }
      if (operation.responses['201'])
        expect(headerNamed(operation.responses['201'], 'Location'), `${name} 201`).toBeDefined();
      expect(
        headerNamed(operation.responses['422'], 'Idempotent-Replayed'),
        `${name} 422 stored`,
      ).toBeDefined();
      expect(headerNamed(operation.responses['429'], 'Idempotent-Replayed'), `${name} 429`).toBeUndefined();
      expect(headerNamed(operation.responses['409'], 'Retry-After'), `${name} 409 in flight`).toBeDefined();
    }
    const gatewayEvents = document.paths['/webhooks/gateway']?.['post'];
    expect(headerNamed(gatewayEvents?.responses['200'], 'Once-Position')).toBeDefined();
    const invoice = document.paths['/invoices/{id}']?.['get'];
    expect(headerNamed(invoice?.responses['200'], 'Once-Position')).toBeUndefined();
    expect(headerNamed(invoice?.responses['200'], 'Once-Stale')).toBeDefined();
  });

  it('declares the rate limits on every answer, and Retry-After on every 429 and 503', () => {
    for (const { name, operation } of operationsOf(document)) {
      expect(operation.responses['429'], name).toBeDefined();
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(headerNamed(response, 'RateLimit-Policy'), `${name} ${status}`).toBeDefined();
        expect(headerNamed(response, 'RateLimit'), `${name} ${status}`).toBeDefined();
        if (status === '429' || status === '503')
          expect(headerNamed(response, 'Retry-After'), `${name} ${status}`).toBeDefined();
      }
    }
  });

  it('answers every error as application/problem+json with the one shared Problem schema', () => {
    expect(document.components.schemas['Problem']).toMatchObject({ required: ['type', 'title', 'status'] });
    for (const { name, operation } of operationsOf(document)) {
      expect(errorStatuses(operation).length, name).toBeGreaterThan(0);
      for (const [status, response] of errorStatuses(operation)) {
        expect(Object.keys(response.content ?? {}), `${name} ${status}`).toEqual([
          'application/problem+json',
        ]);
        expect(response.content?.['application/problem+json']?.schema, `${name} ${status}`).toEqual({
          $ref: problemRef,
        });
      }
    }
  });
});

// The Redocly warnings the document keeps, by rule, with why each stays: none today, so a new warning fails here
// until it is fixed or listed with its reason.
const keptWarnings = new Map<string, string>([]);

interface LintReport {
  readonly totals: { readonly errors: number; readonly warnings: number };
  readonly problems: readonly {
    readonly ruleId: string;
    readonly severity: string;
    readonly message: string;
  }[];
}

const redocly = fileURLToPath(new URL('../../../../node_modules/.bin/redocly', import.meta.url));

describe('the served OpenAPI document, as others consume it', () => {
  let folder: string;
  let document: unknown;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'once-openapi-'));
    document = await (await fetch(`${env.api.url}/docs/json`)).json();
    await writeFile(join(folder, 'openapi.json'), JSON.stringify(document));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("passes Redocly's recommended rules with no error", async () => {
    const lint = await promisify(execFile)(
      redocly,
      ['lint', 'openapi.json', '--extends', 'recommended', '--format', 'json', '--max-problems', '1000'],
      {
        cwd: folder,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((error: unknown) => error as { stdout: string });
    const report = JSON.parse(lint.stdout) as LintReport;
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    const warned = new Set(report.problems.map((problem) => problem.ruleId));
    expect([...warned].filter((rule) => !keptWarnings.has(rule))).toEqual([]);
  });

  it('generates types with openapi-typescript that a consumer compiles against', async () => {
    const generated = astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
    await writeFile(join(folder, 'once-api.ts'), generated);
    await writeFile(join(folder, 'consumer.ts'), consumerSource);
    const program = ts.createProgram([join(folder, 'consumer.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  });
});

// A consumer of the generated types: each `@ts-expect-error` fails the compile once the document stops requiring
// what it marks, and each assignment fails once a declared field or header goes missing.
const consumerSource = `
import type { components, paths } from './once-api';

type PayInvoice = paths['/invoices/{id}/payments']['post'];
type PayInvoiceHeaders = PayInvoice['parameters']['header'];

export const headers: PayInvoiceHeaders = { 'idempotency-key': 'pay-0001-once' };
// @ts-expect-error a command cannot be called without its Idempotency-Key
export const withoutKey: PayInvoiceHeaders = {};

type Payment = PayInvoice['responses'][201]['content']['application/json'];
export const payment: Payment = {
  id: 'p',
  invoiceId: 'i',
  status: 'recorded',
  method: 'cash',
  amount: 450,
  currency: 'EUR',
};
// @ts-expect-error a payment has an amount
export const withoutAmount: Payment = { id: 'p', invoiceId: 'i', status: 'recorded', method: 'cash', currency: 'EUR' };

export const replayed: NonNullable<PayInvoice['responses'][201]['headers']['Idempotent-Replayed']> = 'true';

type Problem = components['schemas']['Problem'];
declare const payInvoiceNotFound: PayInvoice['responses'][404]['content']['application/problem+json'];
export const notFound: Problem = payInvoiceNotFound;
export const problem: Problem = { type: '/problems/not-found', title: 'Not found', status: 404 };
// @ts-expect-error a problem has a status
export const withoutStatus: Problem = { type: '/problems/not-found', title: 'Not found' };

type IssueInvoice = paths['/invoices']['post'];
export const issueKey: IssueInvoice['parameters']['header']['idempotency-key'] = 'issue-0001-once';
`;
