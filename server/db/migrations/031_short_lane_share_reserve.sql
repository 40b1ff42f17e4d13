-- A quote whose slice used its allowance in the short lane is sliced again in a normal slot, never in the lane
-- again (docs/limits.md, "The short lane").
ALTER TABLE quotes ADD COLUMN short_lane_outgrown boolean NOT NULL DEFAULT false;

-- A widget key's counted quotes by shopper address and session, for the share's reserve for newcomers and for who
-- spent the share (docs/limits.md, "Widget budgets").
CREATE INDEX quotes_widget_counted_idx ON quotes (widget_key_id, created_at) WHERE counted;
