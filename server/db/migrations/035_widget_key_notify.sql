-- Widget key checks are served from a per-process cache too (server/accounts/widget-key-cache.ts): a change to a
-- key's validity (its key, account, allowed origins, revocation), made by the service or by an operator's own SQL,
-- tells every process to forget what it cached, on the channel and with the function of migrations 017 and 034.
-- The key's offer is read where it is used, not from the cache, and stays quiet.
CREATE TRIGGER widget_keys_auth_changed AFTER UPDATE OF key, account_id, allowed_origins, revoked_at OR DELETE ON widget_keys
  FOR EACH STATEMENT EXECUTE FUNCTION slicequote_auth_changed();
