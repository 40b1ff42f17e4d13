// Shapes of the API answers the dashboard reads (see GET /v2/openapi.json for the full contract).
export interface User {
  user_id: string;
  email: string;
  plan: string;
  quotes_used: number;
  quotes_limit: number;
  created_at?: string;
}

export interface SessionInfo {
  user: User;
  csrf_token: string;
}

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
  has_more: boolean;
}

export interface Allowance {
  used: number;
  limit: number;
  remaining: number;
  percent: number;
  alert_level: number;
}

export interface Quota {
  plan: string;
  period: string;
  resets_at: string;
  quotes: Allowance;
  storage: Allowance;
}

export interface ApiToken {
  token_id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
  last_used_at?: string | null;
  /** Only in the creation answer. */
  token?: string;
}

export interface WidgetKey {
  widget_key_id: string;
  key: string;
  name: string;
  allowed_origins: string[];
  created_at: string;
}

export type ProfileKind = 'printer' | 'material' | 'global';

export interface Profile {
  profile_id: string;
  kind: ProfileKind;
  name: string;
  scope: 'account' | 'global';
  is_default: boolean;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface FileRecord {
  file_id: string;
  name: string;
  format: string;
  size_bytes: number;
  created_at: string;
}

import type { PriceBreakdown } from '../../../shared/pricing.ts';
export type { PriceBreakdown };

import type { SliceStats as PrintStats } from '../../../shared/print-stats.ts';
export type { PrintStats };

export type QuoteStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface Quote {
  quote_id: string;
  status: QuoteStatus;
  mode: 'sync' | 'async';
  file_id: string;
  file_name: string;
  created_at: string;
  completed_at: string | null;
  total_price?: number;
  currency?: string;
  estimated_time?: string;
  estimated_time_seconds?: number;
  filament_weight?: number;
  printInfo?: { technology: string; material: string; color: string };
  cached?: boolean;
  price_breakdown?: PriceBreakdown;
  print_stats?: PrintStats;
  settings?: Record<'printer_config' | 'material_config' | 'quote_config', Record<string, unknown>>;
  setting_sources?: Record<string, string>;
  infill_pattern?: { requested: string; used: string; exact: boolean };
  slicer?: { name: string; version: string };
  error?: { code: string; message: string } | null;
}

export interface JobAccepted {
  job_id: string;
  quote_id: string;
  status: QuoteStatus;
  status_url: string;
}

export interface Job {
  job_id: string;
  status: QuoteStatus;
  progress: number;
  result: Quote | null;
  error: { code: string; message: string } | null;
}

export interface Webhook {
  webhook_id: string;
  url: string;
  events: string[];
  active: boolean;
  token_id: string | null;
  created_at: string;
  updated_at: string;
  secret?: string;
}

export interface WebhookStats {
  total: number;
  delivered: number;
  failed: number;
  pending: number;
  success_rate: number | null;
  last_delivery_at: string | null;
  last_attempt_at: string | null;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  delivery_id: string;
  webhook_id: string;
  event: string;
  state: DeliveryState;
  attempts: number;
  max_attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  resent_from: string | null;
  created_at: string;
  last_attempt_at: string | null;
  delivered_at: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  sent_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_snippet: string | null;
}

export interface DeliveryDetail extends Delivery {
  interrupted_attempts: number;
  request: { method: 'POST'; url: string; headers: Record<string, string>; body: string };
  attempt_log: DeliveryAttempt[];
}

export interface EndpointStats {
  method: string;
  route: string;
  calls: number;
  /** Answers with status 400 or above; abandoned requests are counted as cancelled instead. */
  errors: number;
  /** Requests the client abandoned before the answer (e.g. a quote the widget superseded). */
  cancelled: number;
  median_ms: number;
  p95_ms: number;
}

export interface MaterialUsage {
  material: string;
  quotes: number;
  grams: number;
}

/** Who made a request: an API token, a widget key, or this dashboard's session. */
export type CallerVia = 'token' | 'widget' | 'session';

export interface Usage {
  from: string;
  to: string;
  via: CallerVia[];
  callers: { via: CallerVia; calls: number; errors: number; cancelled: number }[];
  totals: { calls: number; errors: number; cancelled: number; quotes: number; grams: number };
  endpoints: EndpointStats[];
  materials: MaterialUsage[];
  daily: { date: string; calls: number; errors: number; cancelled: number; quotes: number; grams: number }[];
}

export interface CostPoint {
  period_start: string;
  period: string;
  currency: string;
  quotes: number;
  total: number;
  average: number;
  min: number;
  max: number;
  grams: number;
}

export interface CostTrends {
  group_by: 'day' | 'week' | 'month';
  series: CostPoint[];
}

export interface Popular {
  materials: MaterialUsage[];
  colors: { material: string; color: string; quotes: number }[];
  printers: { printer: string; quotes: number }[];
}

export { WEBHOOK_EVENTS } from '../../../shared/webhook-events.ts';
