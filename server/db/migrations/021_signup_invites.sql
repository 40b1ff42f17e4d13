-- Invite codes for SIGNUP=invite, made on the command line (npm run invite). Only the code's SHA-256 is kept;
-- a code signs up one account, before it expires.
CREATE TABLE signup_invites (
  id text PRIMARY KEY,
  code_sha256 text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  account_id text REFERENCES accounts (id) ON DELETE SET NULL
);
-- Stored file names lose the bidirectional controls that made them display as something else ("\u202Egnp.stl"
-- showed as "lts.png"); new uploads are cleaned on the way in (server/files/service.ts).
UPDATE files
  SET name = coalesce(nullif(btrim(regexp_replace(name, U&'[\061C\200E\200F\202A-\202E\2066-\2069]', '', 'g')), ''), 'model')
  WHERE name ~ U&'[\061C\200E\200F\202A-\202E\2066-\2069]';
