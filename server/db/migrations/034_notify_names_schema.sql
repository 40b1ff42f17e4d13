-- One PostgreSQL database may hold several slicequote deployments, one schema each (DATABASE_URL's search_path).
-- A change to accounts or tokens now names the schema of the table it changed, so that each deployment's processes
-- empty their token caches for their own changes only, not for every other deployment's (server/db/index.ts
-- listens and compares). The rest is as in migration 017.
CREATE OR REPLACE FUNCTION slicequote_auth_changed() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN PERFORM pg_notify('slicequote_tokens', TG_TABLE_SCHEMA); RETURN NULL; END $$;
