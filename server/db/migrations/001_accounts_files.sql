-- Accounts, dashboard sessions, API tokens, model files, public upload ids and the event outbox.

CREATE TABLE accounts (
  id text PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  plan text NOT NULL,
  shop_name text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email));

CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_account_idx ON sessions (account_id);

CREATE TABLE api_tokens (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_tokens_account_idx ON api_tokens (account_id, created_at);

CREATE TABLE files (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  format text NOT NULL,
  content_type text NOT NULL,
  size_bytes bigint NOT NULL,
  sha256 text NOT NULL,
  mesh_sha256 text NOT NULL,
  measurements jsonb NOT NULL,
  footprint jsonb NOT NULL DEFAULT '[]',
  warnings jsonb NOT NULL DEFAULT '[]',
  source text NOT NULL,
  token_id text,
  upload_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX files_account_created_idx ON files (account_id, created_at DESC, id DESC);

CREATE TABLE upload_ids (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  token_id text,
  widget_key_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  file_id text
);
CREATE INDEX upload_ids_account_idx ON upload_ids (account_id);

-- Events are written in the same transaction as the change that caused them; delivery reads them from here.
CREATE TABLE outbox_events (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  token_id text,
  event text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);
CREATE INDEX outbox_events_pending_idx ON outbox_events (seq) WHERE dispatched_at IS NULL;
CREATE INDEX outbox_events_account_idx ON outbox_events (account_id, seq);

-- Monthly usage per account (period 'YYYY-MM', UTC): quotes count toward the plan's allowance.
CREATE TABLE usage_counters (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  period text NOT NULL,
  quotes integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, period)
);
