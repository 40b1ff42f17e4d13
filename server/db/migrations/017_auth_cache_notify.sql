-- API token checks are served from a per-process cache (server/accounts/api-tokens.ts). Any change to an account
-- (plan, offer, signing secret, deletion) or to a token's validity, made by the service or by an operator's own
-- SQL, tells every process to forget what it cached, at once: PostgreSQL delivers the NOTIFY when the change
-- commits. last_used_at is not a change of validity and stays quiet.
-- (A function body stays on one line: migrations are split into statements at semicolons that end a line.)
CREATE FUNCTION slicequote_auth_changed() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN PERFORM pg_notify('slicequote_tokens', ''); RETURN NULL; END $$;
CREATE TRIGGER accounts_auth_changed AFTER UPDATE OR DELETE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION slicequote_auth_changed();
CREATE TRIGGER api_tokens_auth_changed AFTER UPDATE OF account_id, expires_at, revoked_at OR DELETE ON api_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION slicequote_auth_changed();
