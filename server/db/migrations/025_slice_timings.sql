-- When a prefetch's current try started slicing, and when it is expected to end (refined by the slicer's stages):
-- a shopper's quote that waits for that slice is told the time left from it (docs/instant-price.md, "Progress a
-- shopper believes").
ALTER TABLE prefetches ADD COLUMN started_at timestamptz;
ALTER TABLE prefetches ADD COLUMN expected_done_at timestamptz;
-- How long reading a slice's G-code took, apart from the slicer's run: the stages from a shopper's drop to the
-- exact price are measured one by one (npm run bench -- widget).
ALTER TABLE slices ADD COLUMN gcode_read_ms integer;
