-- The bytes a file keeps stored: its original and the canonical mesh parsed from it (a few KB of instanced 3MF can
-- expand to tens of MB). Storage allowances, widget keys' storage budgets and the disk shares count these, not the
-- upload's size (docs/limits.md, "Quotas"). Files stored before count their original's size, as they did.
ALTER TABLE files ADD COLUMN stored_bytes bigint;
UPDATE files SET stored_bytes = size_bytes;
ALTER TABLE files ALTER COLUMN stored_bytes SET NOT NULL;
