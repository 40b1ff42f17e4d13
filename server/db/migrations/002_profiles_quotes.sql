-- Slice profiles, the slice cache, and quotes (every quote is a job row; an async quote's id is its job id).

CREATE TABLE profiles (
  id text PRIMARY KEY,
  account_id text REFERENCES accounts (id) ON DELETE CASCADE, -- NULL: a global profile shipped with the product
  kind text NOT NULL CHECK (kind IN ('printer', 'material', 'global')),
  name text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  settings jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX profiles_one_default_idx ON profiles (coalesce(account_id, ''), kind) WHERE is_default;
CREATE UNIQUE INDEX profiles_name_idx ON profiles (coalesce(account_id, ''), kind, lower(name));
CREATE INDEX profiles_account_idx ON profiles (account_id, kind);

-- Statistics of one real slice, keyed by hash(canonical mesh, slicing-relevant settings).
CREATE TABLE slices (
  key text PRIMARY KEY,
  stats jsonb NOT NULL,
  slicer text NOT NULL,
  slicer_version text NOT NULL,
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE quotes (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  token_id text,
  file_id text NOT NULL,
  file_name text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('sync', 'async')),
  status text NOT NULL CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
  progress integer NOT NULL DEFAULT 0,
  request jsonb NOT NULL,
  resolved jsonb,
  slicing_key text,
  material text,
  color text,
  printer text,
  currency text,
  total_price double precision,
  filament_weight_g double precision,
  print_time_s double precision,
  cached boolean,
  result jsonb,
  error jsonb,
  attempts integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  deleted_at timestamptz
);
CREATE INDEX quotes_history_idx ON quotes (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX quotes_claim_idx ON quotes (created_at) WHERE status IN ('queued', 'processing');
CREATE INDEX quotes_analytics_idx ON quotes (account_id, finished_at) WHERE status = 'completed';
