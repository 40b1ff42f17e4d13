-- Idempotency-Key (docs/security.md, "Idempotent requests"): the first answer to a keyed request, replayed to
-- retries of the same request for 24 hours. A key belongs to an account and, for widget calls, to one widget key
-- and shopper (scope); the fingerprint says which request it was first used for. response is kept as text so a
-- replay is byte-identical (jsonb would reorder its keys).

CREATE TABLE idempotency_keys (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  scope text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_flight', 'done')),
  status_code integer,
  response text,
  location text,
  locked_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, scope, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);
