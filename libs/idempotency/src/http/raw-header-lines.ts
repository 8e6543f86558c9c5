/**
 * The `Idempotency-Key` lines of a request as sent, from Node's `rawHeaders` (name, value, name, value, …): Node joins
 * repeated lines with ", ", which would hide them as a list, and a list is refused rather than read as one key.
 *
 * @example
 * idempotencyKeyLines(request.rawHeaders); // 'abc…', ['abc…', 'def…'] or undefined
 */
export const idempotencyKeyLines = (rawHeaders: readonly string[]): string | string[] | undefined => {
  const lines: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === 'idempotency-key') lines.push(rawHeaders[index + 1] as string);
  }
  if (lines.length === 0) return undefined;
  return lines.length === 1 ? lines[0] : lines;
};
