-- Upload warnings are objects {code, message, ...details} (see shared/model/warnings.ts). Files stored before
-- hold plain sentences, written from exactly four templates; each becomes its object, with the figure it states.
UPDATE files SET warnings = (
  SELECT coalesce(jsonb_agg(
    CASE
      WHEN jsonb_typeof(w) <> 'string' THEN w
      WHEN w #>> '{}' LIKE '%degenerate triangle%' THEN jsonb_build_object(
        'code', 'degenerate_triangles_removed', 'message', w #>> '{}',
        'count', substring(w #>> '{}' from '^([0-9]+) ')::int)
      WHEN w #>> '{}' LIKE '%not watertight%' THEN jsonb_build_object(
        'code', 'not_watertight', 'message', w #>> '{}',
        'openness', substring(w #>> '{}' from 'up to ([0-9.e+-]+) %')::float8 / 100)
      WHEN w #>> '{}' LIKE '%separate bodies%' THEN jsonb_build_object(
        'code', 'several_bodies', 'message', w #>> '{}',
        'count', substring(w #>> '{}' from 'of ([0-9]+) separate')::int)
      ELSE jsonb_build_object(
        'code', 'metadata_repeated', 'message', w #>> '{}',
        'name', substring(w #>> '{}' from 'metadata "(.*)" appears'))
    END ORDER BY i), '[]'::jsonb)
  FROM jsonb_array_elements(warnings) WITH ORDINALITY AS e(w, i)
)
WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(warnings) AS e(w) WHERE jsonb_typeof(w) = 'string');
