-- Instant estimates (docs/estimate.md): a quote waiting for its slice keeps the estimate it was answered with and
-- the estimator's features of its mesh and settings; when the real slice is known, the pair becomes a calibration
-- sample of the account, per printer and material, from which later estimates of that account are calibrated.
ALTER TABLE quotes ADD COLUMN estimate jsonb;
ALTER TABLE quotes ADD COLUMN estimate_features jsonb;
CREATE TABLE calibration_samples (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- printer and material the slice was made for: "<printer>|<material profile id>"
  scope text NOT NULL,
  slicing_key text NOT NULL,
  -- the model: samples of one model are held out together when the error range is measured
  model text NOT NULL,
  features jsonb NOT NULL,
  volume_mm3 double precision NOT NULL,
  time_s double precision NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, slicing_key)
);
CREATE INDEX calibration_samples_scope_idx ON calibration_samples (account_id, scope, created_at DESC);
