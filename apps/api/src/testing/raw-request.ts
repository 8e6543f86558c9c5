import { request } from 'node:http';

/**
 * Sends a request with headers exactly as given, repeated lines included (fetch would merge them), and reads the
 * answer as text.
 */
export const rawRequest = (
  baseUrl: string,
  options: {
    method: string;
    path: string;
    headers: readonly (readonly [string, string])[];
    body?: string | Buffer;
  },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(options.path, baseUrl);
    // A raw header list replaces Node's defaults, so Host and Content-Length are ours to send.
    const headers = [
      ['host', url.host],
      ['content-length', String(Buffer.byteLength(options.body ?? ''))],
      ...options.headers,
    ].flat();
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method,
        path: url.pathname + url.search,
        headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
