/**
 * The schema of the article peer: the single-table design #18 compares Once with. Keys live in one row each, scoped
 * to tenant and actor, carrying the request's method, path and body hash, a lease, and the stored response; the
 * effect (an invoice's balance and its payment rows) is written in the same transaction as the key.
 */
export const articleSchema = `
CREATE TABLE IF NOT EXISTS api_keys (
  key_hash   bytea PRIMARY KEY,
  tenant_id  uuid NOT NULL,
  actor_id   uuid NOT NULL
);

CREATE TABLE IF NOT EXISTS idempotency_keys (
  tenant_id        uuid        NOT NULL,
  actor_id         uuid        NOT NULL,
  key              text        NOT NULL CHECK (length(key) BETWEEN 8 AND 255),
  method           text        NOT NULL,
  path             text        NOT NULL,
  request_hash     bytea       NOT NULL,
  status           text        NOT NULL DEFAULT 'started' CHECK (status IN ('started', 'completed')),
  recovery_point   text        NOT NULL DEFAULT 'started',
  locked_until     timestamptz,
  response_status  int,
  response_body    jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, actor_id, key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_created_at ON idempotency_keys (created_at);

CREATE TABLE IF NOT EXISTS invoices (
  tenant_id  uuid   NOT NULL,
  id         uuid   NOT NULL,
  currency   text   NOT NULL,
  total      bigint NOT NULL CHECK (total > 0),
  paid       bigint NOT NULL DEFAULT 0 CHECK (paid >= 0),
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE IF NOT EXISTS payments (
  tenant_id   uuid        NOT NULL,
  id          uuid        NOT NULL,
  invoice_id  uuid        NOT NULL,
  method      text        NOT NULL,
  amount      bigint      NOT NULL CHECK (amount > 0),
  currency    text        NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX IF NOT EXISTS payments_by_invoice ON payments (tenant_id, invoice_id);
`;
