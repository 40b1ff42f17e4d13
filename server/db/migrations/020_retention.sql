-- Retention (docs/limits.md, "Retention"): a periodic sweep deletes shopper uploads once they are no longer
-- needed, and purges expired upload ids and sessions, slices no live quote names, and outbox events handed to
-- the webhooks long ago. These indexes keep each of its questions off a full scan.
-- Which shopper uploads are old enough to be candidates?
CREATE INDEX files_public_created_idx ON files (created_at) WHERE source = 'public';
-- Does any quote of this file still hold it (in flight, or valid until a future date)?
CREATE INDEX quotes_file_idx ON quotes (file_id, expires_at);
-- Does any quote of a stored file name this slice?
CREATE INDEX quotes_slicing_key_idx ON quotes (slicing_key);
-- Was this file added to a cart? (Cart additions are recorded as widget.added_to_cart events.)
CREATE INDEX outbox_events_cart_file_idx ON outbox_events ((payload -> 'data' ->> 'fileId'))
  WHERE event = 'widget.added_to_cart';
CREATE INDEX outbox_events_dispatched_idx ON outbox_events (dispatched_at) WHERE dispatched_at IS NOT NULL;
CREATE INDEX upload_ids_expiry_idx ON upload_ids (expires_at) WHERE used_at IS NULL;
CREATE INDEX upload_ids_file_idx ON upload_ids (file_id) WHERE file_id IS NOT NULL;
CREATE INDEX sessions_expiry_idx ON sessions (expires_at);
CREATE INDEX slices_created_idx ON slices (created_at);
-- The merchant's retention of shopper uploads that were added to a cart, in days; NULL: kept until deleted.
ALTER TABLE accounts ADD COLUMN carted_upload_retention_days integer;
