import type { RecordedEvent, StreamRetention } from '../port/index.js';

/**
 * Whether retention hides an event at `now`: below `truncateBefore`, or older than `maxAgeSeconds`.
 *
 * @param event the stored event
 * @param retention the stream's retention, if any
 * @param now the current time
 * @example
 * isExpired(event, { truncateBefore: 10n }, new Date());
 */
export const isExpired = (
  event: Pick<RecordedEvent, 'revision' | 'recordedAt'>,
  retention: StreamRetention | undefined,
  now: Date,
): boolean => {
  if (retention === undefined) return false;
  if ('truncateBefore' in retention) return event.revision < retention.truncateBefore;
  return now.getTime() - event.recordedAt.getTime() > retention.maxAgeSeconds * 1000;
};

/**
 * Rejects a retention no adapter can honour: a negative age or revision.
 *
 * @example
 * assertValidRetention({ maxAgeSeconds: 86_400 });
 */
export const assertValidRetention = (retention: StreamRetention): void => {
  if ('truncateBefore' in retention) {
    if (typeof retention.truncateBefore !== 'bigint' || retention.truncateBefore < 0n) {
      throw new RangeError('truncateBefore must be a non-negative bigint revision');
    }
    return;
  }
  if (!Number.isFinite(retention.maxAgeSeconds) || retention.maxAgeSeconds < 0) {
    throw new RangeError('maxAgeSeconds must be a non-negative number');
  }
};
