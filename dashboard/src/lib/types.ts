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

export type ApiToken = Schemas['Token'];

/** The creation answer: the token itself, shown once. */
export type CreatedToken = Schemas['TokenCreated'];

export type WidgetKey = Schemas['WidgetKey'];
export type Order = Schemas['Order'];
export type QuoteRequest = Schemas['QuoteRequestRecord'];
export type Setup = Schemas['Setup'];
export type PrinterLibrary = Schemas['PrinterLibrary'];
export type ProfileImportResult = Schemas['ProfileImportResult'];
export type LibraryPrinter = Schemas['LibraryPrinter'];

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

export type PriceBreakdown = Schemas['PriceBreakdown'];
export type PrintStats = Schemas['PrintStats'];
export type Quote = Schemas['Quote'];
export type QuoteStatus = Quote['status'];

export type JobAccepted = Schemas['JobAccepted'];

export type Job = Schemas['Job'];

/** The creation answer also carries the signing secret, shown once. */
export type Webhook = Schemas['Webhook'] & { secret?: string };

export type WebhookStats = Schemas['WebhookStats'];

export type WebhookUpdate = Schemas['WebhookUpdate'];

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export type Delivery = Schemas['WebhookDelivery'];

export type DeliveryAttempt = Schemas['WebhookDeliveryAttempt'];

export type DeliveryDetail = Schemas['WebhookDeliveryDetail'];

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
