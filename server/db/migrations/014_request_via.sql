-- Who made each logged /v2 request, so GET /v2/usage can tell API calls from the dashboard's own (docs/limits.md):
-- token (an API token), widget (a publishable widget key, or an upload through a widget's upload id) or
-- session (the dashboard). Rows logged before this column existed are classified from what they kept: a
-- token id means token, a /v2/widget route means widget, and the rest is counted as session; widget calls to
-- shared routes (uploads, quotes) from before the upgrade cannot be told apart and land there.
ALTER TABLE api_requests ADD COLUMN via text;
UPDATE api_requests SET via = CASE WHEN token_id IS NOT NULL THEN 'token' WHEN route LIKE '/v2/widget/%' THEN 'widget' ELSE 'session' END;
ALTER TABLE api_requests ALTER COLUMN via SET NOT NULL;
ALTER TABLE api_requests ADD CONSTRAINT api_requests_via_check CHECK (via IN ('token', 'widget', 'session'));
