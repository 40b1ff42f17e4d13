-- The clock time each slice took and the host it ran on: a shopper is told wall seconds, and a host's recent slices
-- say how many of them a second of the cost model's reference takes there, its cores and its load included
-- (docs/instant-price.md, "Progress a shopper believes").
ALTER TABLE slicer_usage ADD COLUMN wall_s real;
ALTER TABLE slicer_usage ADD COLUMN host text;
CREATE INDEX slicer_usage_host_idx ON slicer_usage (host, id) WHERE outcome = 'ok' AND wall_s IS NOT NULL;
