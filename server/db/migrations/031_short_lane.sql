-- A quote whose slice used its allowance in the short lane is sliced again in a normal slot, never in the lane
-- again (docs/limits.md, "The short lane").
ALTER TABLE quotes ADD COLUMN short_lane_outgrown boolean NOT NULL DEFAULT false;
