-- Limits, usage and analytics: the last usage.alert level per (account, resource), the request log behind
-- GET /v2/usage, and an index for streaming exports of quotes in (created_at, id) order.

-- One row per (account, resource): the level of the last alert fired (0, 80 or 100). The transaction that
-- changes usage locks this row (SELECT ... FOR UPDATE), so concurrent changes see each other's level and a
-- crossing fires exactly once. period: the UTC month ('YYYY-MM') the quotes level belongs to; NULL for storage.
CREATE TABLE usage_alerts (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  resource text NOT NULL CHECK (resource IN ('quotes', 'storage')),
  level integer NOT NULL DEFAULT 0 CHECK (level IN (0, 80, 100)),
  period text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, resource)
);
CREATE INDEX usage_alerts_raised_idx ON usage_alerts (period) WHERE level > 0 AND resource = 'quotes';

-- One row per attributed /v2 request, written in batches by the in-process request log (server/limits/request-log.ts).
-- route is the router's template (/v2/file/:file_id), never the raw path, so statistics group per endpoint.
CREATE TABLE api_requests (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  token_id text,
  method text NOT NULL,
  route text NOT NULL,
  status integer NOT NULL,
  duration_ms double precision NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX api_requests_account_time_idx ON api_requests (account_id, created_at);
CREATE INDEX api_requests_time_idx ON api_requests (created_at);

-- Exports page through every quote of an account (deleted ones included) by keyset on (created_at, id).
CREATE INDEX quotes_export_idx ON quotes (account_id, created_at, id);
