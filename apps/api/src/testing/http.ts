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

/**
 * A small HTTP client for the e2e tests: bearer key, optional Idempotency-Key, JSON or raw bodies. It reads its own
 * writes, as a client session would: it keeps the latest `Once-Position` any response gave it and sends it as
 * `Once-Min-Position` on every GET, unless the call gives its own `headers` (an empty object sends none).
 */
export const createHttp = (baseUrl: string) => {
  let latest: string | undefined;
  const remember = async (response: Response): Promise<TextResponse> => {
    const position = response.headers.get('once-position');
    // Tokens of one store sort as text in the order of their positions.
    if (position !== null && (latest === undefined || position > latest)) latest = position;
    return read(response);
  };
  return {
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
      remember(
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
    get: async (path: string, apiKey?: string, headers?: Record<string, string>): Promise<TextResponse> =>
      remember(
        await fetch(`${baseUrl}${path}`, {
          headers: {
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
            ...(headers ?? (latest === undefined ? {} : { 'once-min-position': latest })),
          },
        }),
      ),
    /** The latest `Once-Position` this client was given. */
    latestPosition: (): string | undefined => latest,
  };
};

export type Http = ReturnType<typeof createHttp>;
