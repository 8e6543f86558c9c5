/** Appends one reference token to a JSON Pointer (RFC 6901 §3: `~` → `~0`, `/` → `~1`). */
export const appendPointer = (pointer: string, token: string | number): string =>
  `${pointer}/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`;
