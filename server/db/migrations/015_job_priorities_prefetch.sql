-- Instant price (docs/instant-price.md). Quote jobs are claimed by priority, then age: a shopper's quote (0) before
-- a merchant's API quote (1). While a job slices, its row shows the slicer's stage and when the slice is expected
-- to end. Prefetches are slices started at a widget upload for the choices a shopper is likely to make; they are
-- not quotes (no history, no allowance, no events), run only when no quote waits, and go with their file or when
-- the upload's shopper session ends.
ALTER TABLE quotes ADD COLUMN priority smallint NOT NULL DEFAULT 1;
ALTER TABLE quotes ADD COLUMN stage text;
ALTER TABLE quotes ADD COLUMN expected_done_at timestamptz;
DROP INDEX quotes_claim_idx;
CREATE INDEX quotes_claim_idx ON quotes (priority, created_at) WHERE status IN ('queued', 'processing');
CREATE INDEX quotes_key_in_flight_idx ON quotes (slicing_key) WHERE status = 'processing';
CREATE TABLE prefetches (
  slicing_key text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  file_id text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  -- settings and placement, as a quote row keeps them
  resolved jsonb NOT NULL,
  -- 0: the offer's default choice, then the other choices that change the slice
  rank smallint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX prefetches_claim_idx ON prefetches (rank, created_at);
CREATE INDEX prefetches_account_idx ON prefetches (account_id);
