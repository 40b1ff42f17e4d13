-- Quote requests (docs/widget.md, "Request a quote"): a part the widget could not sell at once (no cart on the
-- page, no automatic price, or above the merchant's rule) with the shopper's contact, for the merchant to price by
-- hand. Pricing it makes a quote signed like any other (priced_quote_id) and a kept link to order it; the request
-- is ordered once a cart line of that quote exists (read, not stored).
CREATE TABLE quote_requests (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  widget_key_id text,
  -- SHA-256 of the shopper token: the shopper's own request (rate limits, the files it may name).
  shopper_hash text,
  token_id text,
  file_id text NOT NULL,
  file_name text NOT NULL,
  -- The automatic quote it concerns, when there was one (priced, or failed with reason_code).
  quote_id text,
  choices json,
  quantity integer NOT NULL,
  reason text NOT NULL CHECK (reason IN ('no_cart', 'not_priceable', 'merchant_rule')),
  reason_code text,
  name text NOT NULL,
  email text NOT NULL,
  note text NOT NULL DEFAULT '',
  origin text,
  -- The shop page it was sent from: the order link opens the priced quote there.
  page text,
  priced_quote_id text,
  unit_price double precision,
  currency text,
  priced_at timestamptz,
  link_token text,
  link_expires_at timestamptz,
  emailed_at timestamptz,
  email_error text,
  created_at timestamptz NOT NULL
);
CREATE INDEX quote_requests_account_idx ON quote_requests (account_id, created_at DESC, id DESC);
CREATE INDEX quote_requests_file_idx ON quote_requests (file_id);
