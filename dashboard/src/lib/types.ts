// Shapes of the API answers the dashboard reads, from the contract (shared/api/schema.ts, generated from
// /v2/openapi.json), and the few shapes of its own.
import type { components } from '../../../shared/api/schema.ts';

type Schemas = components['schemas'];
export type User = Schemas['User'];

export type SessionInfo = Schemas['Session'];

export type SignupMode = Schemas['SignupMode']['mode'];

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

export type Quota = Schemas['Quota'];

export type ApiToken = Schemas['Token'] & { token?: string };

export type WidgetKey = Schemas['WidgetKey'];
export type Order = Schemas['Order'];
export type Setup = Schemas['Setup'];

export type ProfileKind = 'printer' | 'material' | 'global';

// The contract types settings per profile kind; the forms read them by field name.
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

export type FileRecord = Schemas['File'];

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
  /** What a shopper picked in the widget; null for API quotes. */
  choices?: Schemas['ResolvedChoices'];
}

export type JobAccepted = Schemas['JobAccepted'];

export interface Job {
  job_id: string;
  status: QuoteStatus;
  progress: number;
  result: Quote | null;
  error: { code: string; message: string } | null;
}

/** The creation answer also carries the signing secret, shown once. */
export type Webhook = Schemas['Webhook'] & { secret?: string };

export type WebhookStats = Schemas['WebhookStats'];

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export type Delivery = Schemas['WebhookDelivery'];

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

export type EndpointStats = Schemas['EndpointStats'];

export type MaterialUsage = Schemas['MaterialUsage'];

/** Who made a request: an API token, a widget key, or this dashboard's session. */
export type CallerVia = 'token' | 'widget' | 'session';

export type Usage = Schemas['Usage'];

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

export type CostTrends = Schemas['CostTrends'];

export type Popular = Schemas['PopularAnalytics'];

export { WEBHOOK_EVENTS } from '../../../shared/webhook-events.ts';
