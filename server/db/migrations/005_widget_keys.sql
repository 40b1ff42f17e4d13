-- Publishable widget keys (safe in a shop page), restricted to allowed origins; quotes remember the key.

CREATE TABLE widget_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  key text NOT NULL UNIQUE,
  allowed_origins jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX widget_keys_account_idx ON widget_keys (account_id, created_at);

ALTER TABLE quotes ADD COLUMN widget_key_id text;
