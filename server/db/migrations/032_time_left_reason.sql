-- A slicing quote expected to take longer than its prediction says so: the reason its time left grew
-- (docs/instant-price.md, "Progress a shopper believes").
ALTER TABLE quotes ADD COLUMN slower_than_predicted boolean NOT NULL DEFAULT false;
