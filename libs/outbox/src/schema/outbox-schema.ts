import type { Pool } from 'pg';
import { migrate } from '@once/postgres';
import type { Migration } from '@once/postgres';

const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'webhook endpoints, messages, attempts and the relay checkpoint',
    sql: `
      CREATE TABLE webhook_relay_checkpoints (
        name       text        PRIMARY KEY,
        position   text,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE webhook_endpoints (
        endpoint_id                text        PRIMARY KEY,
        tenant_id                  text        NOT NULL,
        url                        text        NOT NULL,
        event_types                text[]      NOT NULL,
        secret                     text        NOT NULL,
        previous_secret            text,
        previous_secret_expires_at timestamptz,
        status                     text        NOT NULL CHECK (status IN ('enabled', 'disabled', 'deleted')),
        disabled_reason            text,
        registered_at              timestamptz NOT NULL,
        failing_since              timestamptz,
        updated_at                 timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_endpoints_by_tenant ON webhook_endpoints (tenant_id);
      CREATE TABLE webhook_messages (
        seq             bigint      GENERATED ALWAYS AS IDENTITY,
        endpoint_id     text        NOT NULL,
        message_id      text        NOT NULL,
        tenant_id       text        NOT NULL,
        stream          text        NOT NULL,
        event_type      text        NOT NULL,
        body            text        NOT NULL,
        appended_at     timestamptz NOT NULL,
        enqueued_at     timestamptz NOT NULL DEFAULT now(),
        status          text        NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
        attempts        integer     NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_attempt_at timestamptz,
        last_status     integer,
        last_error      text,
        delivered_at    timestamptz,
        PRIMARY KEY (endpoint_id, message_id)
      );
      CREATE INDEX webhook_messages_pending ON webhook_messages (endpoint_id, seq) WHERE status = 'pending';
      CREATE INDEX webhook_messages_by_time ON webhook_messages (endpoint_id, appended_at);
      CREATE TABLE webhook_attempts (
        attempt_id      bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        endpoint_id     text        NOT NULL,
        message_id      text        NOT NULL,
        attempt         integer     NOT NULL,
        started_at      timestamptz NOT NULL,
        duration_ms     double precision NOT NULL,
        status_code     integer,
        error           text,
        outcome         text        NOT NULL CHECK (outcome IN ('delivered', 'failed', 'dead')),
        next_attempt_at timestamptz
      );
      CREATE INDEX webhook_attempts_by_message ON webhook_attempts (endpoint_id, message_id, attempt_id);
    `,
  },
  {
    version: 2,
    name: 'held messages, pruning of delivered ones, and marks of the log by time for replays',
    sql: `
      ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_status_check;
      ALTER TABLE webhook_messages ADD CONSTRAINT webhook_messages_status_check
        CHECK (status IN ('pending', 'held', 'delivered', 'dead'));
      CREATE INDEX webhook_messages_delivered ON webhook_messages (delivered_at) WHERE status = 'delivered';
      CREATE TABLE webhook_pruned_attempts (
        outcome text   PRIMARY KEY,
        count   bigint NOT NULL
      );
      CREATE TABLE webhook_log_marks (
        position    text        PRIMARY KEY,
        recorded_at timestamptz NOT NULL
      );
      CREATE INDEX webhook_log_marks_by_time ON webhook_log_marks (recorded_at);
    `,
  },
];

/**
 * Creates the outbox's tables: the endpoints as the relay last read them from the log, one message per (endpoint,
 * event) with its delivery state, every attempt, the relay's checkpoint in the global log, the attempts pruned so
 * far (by outcome, so the attempt counters never go down) and marks of the log by time (where a replay starts).
 *
 * @example
 * await migrateOutbox(pool);
 */
export const migrateOutbox = async (pool: Pool): Promise<void> => {
  await migrate(pool, 'outbox', migrations);
};
