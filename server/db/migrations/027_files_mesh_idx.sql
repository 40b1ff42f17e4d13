-- A shop's uploads of the same mesh, found at once: a shopper quote of a model the shop's shoppers already had
-- counted this month counts no more of the allowance (docs/limits.md, "Quotes a shopper explores").
CREATE INDEX files_account_mesh_idx ON files (account_id, mesh_sha256);
