-- The merchant's offer (what a storefront shopper may choose; docs/offer.md), signed expiring quotes, the
-- shopper a widget upload and its quotes belong to, and whether a quote counted toward the monthly allowance.

-- NULL: the default offer derived from the profiles. A widget key's offer, when set, replaces the account's.
ALTER TABLE accounts ADD COLUMN offer json;
ALTER TABLE widget_keys ADD COLUMN offer json;

-- HMAC key of quote signatures; created on first use (docs/quote-signatures.md).
ALTER TABLE accounts ADD COLUMN quote_signing_secret text;

-- SHA-256 of the shopper token the widget presented (X-Shopper-Token): a shopper sees only their own uploads
-- and quotes, even with the shop's public key.
ALTER TABLE upload_ids ADD COLUMN shopper_hash text;
ALTER TABLE quotes ADD COLUMN shopper_hash text;

-- The shopper's choices from the offer (material, colour, quality, infill, quantity); NULL for raw requests.
ALTER TABLE quotes ADD COLUMN choices json;
ALTER TABLE quotes ADD COLUMN expires_at timestamptz;
-- Set at completion: false for a widget quote of an upload whose exploration was already counted.
ALTER TABLE quotes ADD COLUMN counted boolean;
CREATE INDEX quotes_file_counted_idx ON quotes (file_id) WHERE counted AND widget_key_id IS NOT NULL;
