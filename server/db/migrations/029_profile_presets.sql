-- The PrusaSlicer presets an imported printer profile was made of (docs/profiles.md): its printer preset and its
-- print preset. The print presets imported for one printer are the qualities the account's derived offer shows.
-- NULL for profiles made of settings alone and for materials.
ALTER TABLE profiles ADD COLUMN printer_preset text;
ALTER TABLE profiles ADD COLUMN print_preset text;
