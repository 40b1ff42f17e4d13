-- Every add to a cart (docs/widget.md, "Add to cart"), kept as the shop's orders: one row per add. A replay of an
-- add (the same quote, the same shopper session and the same quantity as that session's latest add of the quote)
-- answers the stored line again and records nothing. A file's revision counts its rescales, so a cart line and
-- a quote's signature say which version of the file was priced, and a quote priced for an earlier one is refused.
ALTER TABLE files ADD COLUMN revision integer NOT NULL DEFAULT 1;

CREATE TABLE cart_lines (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  quote_id text NOT NULL,
  file_id text NOT NULL,
  -- Who added it: 'shopper:<widget key id>:<shopper token hash>', 'token:<token id>' or 'session'.
  added_by text NOT NULL,
  widget_key_id text,
  quantity integer NOT NULL,
  total_price double precision NOT NULL,
  currency text NOT NULL,
  -- The line as answered (kept as text so a replay answers it byte for byte).
  line text NOT NULL,
  origin text,
  -- When the shop page confirmed the line reached its cart; null: not (yet) acknowledged.
  acknowledged_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX cart_lines_latest_idx ON cart_lines (quote_id, added_by, created_at DESC);
CREATE INDEX cart_lines_account_idx ON cart_lines (account_id, created_at DESC, id DESC);
CREATE INDEX cart_lines_file_idx ON cart_lines (file_id);
