/** A response read once: status, headers and the body as the exact text sent. */
export interface TextResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json<T = Record<string, unknown>>(): T;
}

const read = async (response: Response): Promise<TextResponse> => {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
};

/** A small HTTP client for the e2e tests: bearer key, optional Idempotency-Key, JSON or raw bodies. */
export const createHttp = (baseUrl: string) => ({
  post: async (
    path: string,
    options: {
      apiKey?: string;
      key?: string | undefined;
      body?: unknown;
      raw?: string;
      headers?: Record<string, string>;
    },
  ): Promise<TextResponse> =>
    read(
      await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
          ...options.headers,
        },
        body: options.raw ?? JSON.stringify(options.body ?? {}),
      }),
    ),
  get: async (path: string, apiKey?: string): Promise<TextResponse> =>
    read(await fetch(`${baseUrl}${path}`, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} })),
});

export type Http = ReturnType<typeof createHttp>;
