import type { Pool } from 'pg';

/** One attempt's result, as the delivery state records it. */
export interface AttemptRecord {
  readonly endpointId: string;
  readonly messageId: string;
  /** The message's attempts so far, this one included. */
  readonly attempt: number;
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly statusCode: number | undefined;
  readonly error: string | undefined;
  readonly outcome: 'delivered' | 'failed' | 'dead';
  readonly nextAttemptAt: Date | undefined;
}

/** Records attempts in batches: each `record` resolves once its attempt is committed. */
export interface DeliveryRecorder {
  record(attempt: AttemptRecord): Promise<void>;
}

/**
 * Writes the attempts that finished while the previous write was in progress as one statement (the message's state
 * and the attempt row together), so the relay's bookkeeping costs one round trip per batch, not two per delivery.
 * A relay that dies before the write leaves those messages pending: they are delivered again.
 *
 * @example
 * const recorder = createDeliveryRecorder(pool);
 * await recorder.record({ endpointId, messageId, attempt: 1, outcome: 'delivered', … });
 */
export const createDeliveryRecorder = (pool: Pool): DeliveryRecorder => {
  let waiting: { attempt: AttemptRecord; settle: (error?: unknown) => void }[] = [];
  let writing = false;

  const write = async (): Promise<void> => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      const attempts = batch.map((entry) => entry.attempt);
      try {
        await pool.query(
          `WITH r AS (
             SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::float8[], $6::int[],
                                  $7::text[], $8::text[], $9::timestamptz[])
                     AS r(endpoint_id, message_id, attempt, started_at, duration_ms, status_code, error, outcome,
                          next_attempt_at)
           ), messages AS (
             UPDATE webhook_messages m
                SET status = CASE r.outcome WHEN 'failed' THEN 'pending' ELSE r.outcome END,
                    attempts = r.attempt, next_attempt_at = r.next_attempt_at, last_attempt_at = r.started_at,
                    last_status = r.status_code, last_error = r.error,
                    delivered_at = CASE WHEN r.outcome = 'delivered' THEN now() ELSE m.delivered_at END
               FROM r
              WHERE m.endpoint_id = r.endpoint_id AND m.message_id = r.message_id
           )
           INSERT INTO webhook_attempts
             (endpoint_id, message_id, attempt, started_at, duration_ms, status_code, error, outcome, next_attempt_at)
           SELECT endpoint_id, message_id, attempt, started_at, duration_ms, status_code, error, outcome, next_attempt_at
             FROM r`,
          [
            attempts.map((entry) => entry.endpointId),
            attempts.map((entry) => entry.messageId),
            attempts.map((entry) => entry.attempt),
            attempts.map((entry) => entry.startedAt.toISOString()),
            attempts.map((entry) => entry.durationMs),
            attempts.map((entry) => entry.statusCode ?? null),
            attempts.map((entry) => entry.error ?? null),
            attempts.map((entry) => entry.outcome),
            attempts.map((entry) => entry.nextAttemptAt?.toISOString() ?? null),
          ],
        );
        for (const entry of batch) entry.settle();
      } catch (error) {
        for (const entry of batch) entry.settle(error);
      }
    }
    writing = false;
  };

  return {
    record: (attempt) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ attempt, settle: (error) => (error === undefined ? resolve() : reject(error)) });
        if (!writing) void write();
      }),
  };
};
