import { parseRetryAfter } from '../retry/index.js';
import type { ProblemDocument } from './outcome.js';

/** What the client does with a response. */
export type ResponseVerdict =
  | { readonly kind: 'succeeded'; readonly body: unknown; readonly replayed: boolean }
  | {
      readonly kind: 'rejected';
      readonly problem: ProblemDocument;
      readonly replayed: boolean;
      readonly final: boolean;
    }
  | { readonly kind: 'retry'; readonly problem: ProblemDocument; readonly retryAfterMs: number | undefined };

/** The response fields a verdict depends on. */
export interface ResponseFacts {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyText: string;
}

const IN_FLIGHT_PROBLEM = /(?:^|[/#:])idempotency-key-in-flight$/;
/** 408 and 425 join 429 and 5xx: the server says in so many words that a later try may work. */
const RETRY_LATER = new Set([408, 425, 429]);
/** The stored request did not run; it may pass with other credentials, so it is kept. */
const NEEDS_CREDENTIALS = new Set([401, 403]);

const isJson = (contentType: string | undefined): boolean =>
  contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType.trim());

const parseBody = (facts: ResponseFacts): unknown => {
  if (!isJson(facts.headers['content-type']) || facts.bodyText === '') return facts.bodyText;
  try {
    return JSON.parse(facts.bodyText) as unknown;
  } catch {
    return facts.bodyText;
  }
};

const toProblem = (facts: ResponseFacts, body: unknown): ProblemDocument => {
  const fallback: ProblemDocument = {
    type: 'about:blank',
    status: facts.status,
    ...(facts.statusText === '' ? {} : { title: facts.statusText }),
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fallback;
  const fields = body as Record<string, unknown>;
  return { ...fields, type: typeof fields['type'] === 'string' ? fields['type'] : 'about:blank' };
};

const isReplayed = (headers: Readonly<Record<string, string>>): boolean => {
  const value = headers['idempotent-replayed']?.trim().toLowerCase();
  return value === 'true' || value === '?1';
};

/**
 * Decides what a response means for the intent: success (2xx), a retry (5xx, 408, 425, 429, and 409 whose
 * problem type is `idempotency-key-in-flight`), or a rejection that another try would not change (every other
 * status; final unless 401/403).
 *
 * @param facts the response.
 * @param now the client's clock, for an HTTP-date `Retry-After`.
 * @example
 * classifyResponse({ status: 503, statusText: '', headers: { 'retry-after': '2' }, bodyText: '' }, Date.now());
 * // { kind: 'retry', retryAfterMs: 2000, problem: { type: 'about:blank', status: 503 } }
 */
export const classifyResponse = (facts: ResponseFacts, now: number): ResponseVerdict => {
  const body = parseBody(facts);
  const replayed = isReplayed(facts.headers);
  if (facts.status >= 200 && facts.status < 300) return { kind: 'succeeded', body, replayed };
  const problem = toProblem(facts, body);
  const inFlight = facts.status === 409 && IN_FLIGHT_PROBLEM.test(problem.type);
  if (facts.status >= 500 || RETRY_LATER.has(facts.status) || inFlight) {
    return { kind: 'retry', problem, retryAfterMs: parseRetryAfter(facts.headers['retry-after'], now) };
  }
  return { kind: 'rejected', problem, replayed, final: !NEEDS_CREDENTIALS.has(facts.status) };
};
