-- One row per recorded delivery attempt, for the delivery detail (GET /v2/webhooks/{id}/deliveries/{id}):
-- when it was sent (the X-Webhook-Timestamp it carried), how long it took, the answer's status and the start
-- of the answer. Written in the same statement that records the outcome on webhook_deliveries, so only the
-- lease holder writes one, and a delivery has at most 3 (docs/webhooks.md, retries). Interrupted attempts
-- have no outcome and no row. The snippet is bounded here too, so no code path can store more.
CREATE TABLE webhook_delivery_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL CHECK (attempt >= 1),
  sent_at timestamptz NOT NULL,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  status_code integer,
  error text CHECK (char_length(error) <= 500),
  response_snippet text CHECK (char_length(response_snippet) <= 2048),
  PRIMARY KEY (delivery_id, attempt)
);
