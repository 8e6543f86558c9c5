/**
 * The URL of a request path on the api's origin. Refuses what would send the client's credentials elsewhere: an
 * absolute URL (`https://other.example/…`), a protocol-relative or backslashed path (`//other.example`, `/\other`),
 * or anything else that resolves to another origin than `baseUrl`'s.
 *
 * @example
 * sameOriginUrl('/invoices', 'https://api.example'); // https://api.example/invoices
 * sameOriginUrl('//evil.example/x', 'https://api.example'); // throws TypeError
 */
export const sameOriginUrl = (path: string, baseUrl: string | URL | undefined): URL => {
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\')) {
    throw new TypeError(
      `the request path must be absolute on the api (start with one "/"): ${JSON.stringify(path)}`,
    );
  }
  const url = new URL(path, baseUrl);
  const base = baseUrl === undefined ? undefined : new URL(baseUrl);
  if (base && url.origin !== base.origin) {
    throw new TypeError(`the request path leaves the api's origin ${base.origin}: ${JSON.stringify(path)}`);
  }
  return url;
};
