const DELTA_SECONDS = /^\d+$/;
const MONTH_NAME = /Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec/;

/**
 * Reads a `Retry-After` value (RFC 9110 section 10.2.3) as milliseconds from `now`: either delta-seconds or an
 * HTTP-date in any of its three forms (a date in the past means 0). Anything else is ignored (`undefined`).
 *
 * @param value the header value, or null when absent.
 * @param now the current time in ms since the epoch, from the client's clock.
 * @example
 * parseRetryAfter('3', Date.now()); // 3000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:58 GMT')); // 2000
 */
export const parseRetryAfter = (value: string | null | undefined, now: number): number | undefined => {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (DELTA_SECONDS.test(trimmed)) return Number(trimmed) * 1000;
  if (!MONTH_NAME.test(trimmed)) return undefined;
  // asctime dates carry no zone but are GMT by definition; Date.parse would read them as local time.
  const at = Date.parse(trimmed.endsWith('GMT') ? trimmed : `${trimmed} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};
