-- A shop's own PrusaSlicer options, imported from its config (docs/profiles.md): the allowlisted options a printer
-- or material profile slices with, and the preset each came from. NULL for profiles made of settings alone.
ALTER TABLE profiles ADD COLUMN slicer_options jsonb;
ALTER TABLE profiles ADD COLUMN slicer_sources jsonb;
