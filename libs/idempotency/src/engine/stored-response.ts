import type { StoredResponse } from '../key-log/index.js';
import type { HandlerResponse } from './command-handler.js';

/** Response headers that are stored and replayed; everything else a handler sets is dropped. */
export const defaultResponseHeaderAllowList: readonly string[] = [
  'content-type',
  'location',
  'etag',
  'last-modified',
  'content-location',
];

/**
 * The response as it will be sent and stored: the body serialised to its final text once, so the first response
 * and every replay carry the same bytes; only allow-listed headers kept.
 */
export const toStoredResponse = (response: HandlerResponse, allowList: readonly string[]): StoredResponse => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    const lower = name.toLowerCase();
    if (allowList.includes(lower)) headers[lower] = value;
  }
  let body: string;
  if (typeof response.body === 'string') {
    body = response.body;
  } else if (response.body === undefined) {
    body = '';
  } else {
    body = JSON.stringify(response.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  return { status: response.status, headers, body };
};
