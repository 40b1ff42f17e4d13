-- What a widget key's shoppers may spend (docs/limits.md, "Widget budgets"): counters per widget key and window.
-- scope: 'shopper:<shopper hash>' (quotes per shopper session per UTC hour), 'day' (quotes per UTC day of the whole
-- shop) or 'month' (quotes counted against the key's share of the monthly allowance). A request takes its slot with
-- one conditional upsert (the row lock serialises concurrent ones), so a limit holds exactly across processes.
CREATE TABLE widget_budget_counters (
  widget_key_id text NOT NULL REFERENCES widget_keys (id) ON DELETE CASCADE,
  scope text NOT NULL,
  window_start timestamptz NOT NULL,
  window_end timestamptz NOT NULL,
  used integer NOT NULL,
  -- The usage.alert band last fired for this window ('month' rows only): 0, 80 or 100.
  alerted integer NOT NULL DEFAULT 0,
  PRIMARY KEY (widget_key_id, scope, window_start)
);
CREATE INDEX widget_budget_counters_end_idx ON widget_budget_counters (window_end);

-- The bytes a widget key's shoppers keep stored: their uploads, found through the upload ids the key issued.
CREATE INDEX upload_ids_widget_key_idx ON upload_ids (widget_key_id) WHERE file_id IS NOT NULL;
