-- How a file's numbers are read and sized (docs/placement.md): the unit (a 3MF's own, one stated at upload, or
-- millimetres assumed), an extra uniform scale, and the shape facts the orientation search reads. Files stored
-- before this keep millimetres (3MF: their declared unit), scale 1, and no shape (their bounding box stands in).
ALTER TABLE files ADD COLUMN unit text NOT NULL DEFAULT 'mm';
ALTER TABLE files ADD COLUMN unit_source text NOT NULL DEFAULT 'assumed';
ALTER TABLE files ADD COLUMN scale double precision NOT NULL DEFAULT 1;
ALTER TABLE files ADD COLUMN shape jsonb;
UPDATE files SET unit_source = 'file', unit = CASE measurements->>'unit'
  WHEN 'micron' THEN 'um' WHEN 'centimeter' THEN 'cm' WHEN 'meter' THEN 'm' WHEN 'inch' THEN 'in' WHEN 'foot' THEN 'ft' ELSE 'mm' END
  WHERE format = '3mf';
