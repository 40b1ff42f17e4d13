-- When a prefetch's current try started slicing: a shopper's quote that waits for that slice is told the time
-- left from it (docs/instant-price.md, "Progress while slicing").
ALTER TABLE prefetches ADD COLUMN started_at timestamptz;
