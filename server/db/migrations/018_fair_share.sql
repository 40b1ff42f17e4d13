-- Fair share of the slicer (docs/limits.md, "Slicer time"). Every quote and prefetch names the caller it is
-- charged to (tok:<token>, acct:<account> for the dashboard, ip:<address> for a shop's shopper) and the slicer
-- seconds it is predicted to take. Every slice that ran, whatever its outcome, is recorded with the seconds it
-- really took: workers claim jobs by these (accounts, then callers, that used the slicer least recently go
-- first), and a caller's hourly slicer budget is counted from them.
ALTER TABLE quotes ADD COLUMN caller text;
ALTER TABLE quotes ADD COLUMN predicted_s real;
ALTER TABLE prefetches ADD COLUMN caller text;
ALTER TABLE prefetches ADD COLUMN predicted_s real;
CREATE INDEX quotes_queued_account_idx ON quotes (account_id, caller) WHERE status = 'queued';
CREATE TABLE slicer_usage (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL,
  caller text NOT NULL,
  -- quote, prefetch
  kind text NOT NULL,
  -- ok, failed, timeout, stopped
  outcome text NOT NULL,
  seconds real NOT NULL,
  -- the cost model's prediction on the reference machine (server/slicer/cost.ts)
  reference_s real,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX slicer_usage_account_idx ON slicer_usage (account_id, at);
CREATE INDEX slicer_usage_caller_idx ON slicer_usage (caller, at);
