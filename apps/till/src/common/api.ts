/** A read's answer: the parsed JSON body (or problem document) and its status. */
export interface ApiAnswer<T> {
  readonly ok: boolean;
  readonly status: number;
  readonly body: T;
}

/**
 * Sends one request to the api of the page's own origin with the API key; never throws for an HTTP status (a network
 * failure does throw, as `fetch` does).
 *
 * @example
 * const { ok, body } = await callApi<{ items: MenuItem[] }>(apiKey, 'GET', '/menu');
 */
export const callApi = async <T>(
  apiKey: string,
  method: 'GET' | 'PUT',
  path: string,
  options: { readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> } = {},
): Promise<ApiAnswer<T>> => {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    ok: response.ok,
    status: response.status,
    body: (text === '' ? undefined : JSON.parse(text)) as T,
  };
};

/** The problem document's most useful line. */
export const problemText = (problem: unknown): string => {
  if (typeof problem !== 'object' || problem === null) return 'no answer';
  const { title, detail } = problem as { title?: unknown; detail?: unknown };
  return [title, detail].filter((part) => typeof part === 'string').join(': ') || 'refused';
};
