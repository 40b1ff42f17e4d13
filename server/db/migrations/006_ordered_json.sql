-- Quote results and event payloads are documents shown to people and sent to receivers: keep them as
-- json (text, key order as written: spec fields first) rather than jsonb, which reorders keys. Nothing
-- queries inside them.
ALTER TABLE quotes ALTER COLUMN result TYPE json USING result::json;
ALTER TABLE outbox_events ALTER COLUMN payload TYPE json USING payload::json
