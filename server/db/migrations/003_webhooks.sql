-- Webhooks (signed event notifications) and their deliveries.

-- events: JSON array of event names. token_id: when set, the webhook fires only for events caused by that token.
-- A token row is never deleted while its account lives (revocation only sets revoked_at), so the cascade only
-- runs with the account; SET NULL would silently widen a linked webhook to the whole account.
CREATE TABLE webhooks (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  url text NOT NULL,
  events jsonb NOT NULL,
  secret text NOT NULL,
  token_id text REFERENCES api_tokens (id) ON DELETE CASCADE,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_account_idx ON webhooks (account_id, created_at DESC, id DESC);

-- One row per (event, webhook), or per resend. body and signature are fixed at creation, so every attempt sends
-- the same bytes. attempts counts attempts with a recorded outcome; interrupted_attempts counts claims whose
-- lease ran out with no outcome (the process died mid-attempt). lease_owner/lease_expires_at: the claim.
CREATE TABLE webhook_deliveries (
  seq bigserial NOT NULL,
  id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event text NOT NULL,
  body text NOT NULL,
  signature text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  interrupted_attempts integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  response_snippet text,
  resent_from text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  lease_owner text,
  lease_expires_at timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, seq DESC);
