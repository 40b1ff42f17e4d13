// Shapes of the widget's API responses (GET /v2/widget/config, uploads, quotes, jobs, cart), taken from the
// contract, and of the DOM events the element emits.

import type { components } from '../../shared/api/schema.ts';
import type { ServerReason, TimeLeft, TimeLeftReading } from './time-left.ts';

// The API's shapes come from the contract (shared/api/schema.ts, generated from /v2/openapi.json).
type Schemas = components['schemas'];
/** The merchant's offer as GET /v2/widget/config serves it: the shopper picks only from it. */
export type WidgetConfig = Schemas['WidgetConfig'];
export type WidgetMaterial = WidgetConfig['materials'][number];
/** A named quality preset of the merchant's offer. */
export type WidgetQuality = WidgetConfig['qualities'][number];
export type BuildVolume = WidgetConfig['build_volume'];
export type UploadTicket = Schemas['UploadId'];
/** What the merchant's backend verifies with its quote signing secret before charging. */
export type QuoteSignature = Schemas['QuoteSignature'];
/** How the part is printed (docs/placement.md). */
export type Placement = Schemas['Placement'];
export type JobAccepted = Schemas['JobAccepted'];
export type CartLine = Schemas['CartLine'];
/** The choices a quote was made with, as the server filled them in. */
export type QuoteChoices = NonNullable<Schemas['ResolvedChoices']>;
/** A `unit_suspect` warning: the model's size suggests another unit. */
export type UnitSuspect = Schemas['UnitSuspectWarning'];
export type FileRecord = Schemas['File'];
/** Every offered material priced for the part (GET /v2/widget/files/{file_id}/prices). */
export type MaterialPrices = Schemas['MaterialPrices'];
export type LeadTimeOption = WidgetConfig['lead_times'][number];
/** A link to a priced quote the shopper keeps, and what it opens (docs/widget.md, "Quotes shoppers can keep"). */
export type KeptQuoteLink = Schemas['KeptQuoteLink'];
export type KeptQuote = Schemas['KeptQuote'];

/** A completed quote: the contract's Quote, with the fields every completed quote carries required. */
export type Quote = Schemas['Quote'] &
  Required<
    Pick<
      Schemas['Quote'],
      | 'total_price'
      | 'currency'
      | 'estimated_time'
      | 'estimated_time_seconds'
      | 'filament_weight'
      | 'printInfo'
      | 'choices'
      | 'expires_at'
      | 'signature'
    >
  >;

/** An instant estimate while the slice runs: never a price, never in a cart (docs/estimate.md). */
export type Estimate = Schemas['Estimate'];

export interface Job {
  status: 'queued' | 'processing' | 'completed' | 'failed';
  progress: number;
  estimate: Estimate | null;
  stage: string | null;
  /** Where the job is, in words a shopper understands (the slicer's own stage is not shown). */
  step: JobStep | null;
  expected_remaining_seconds: number | null;
  /** Why the time left is more than the job's own slice (time-left.ts says it in words when it goes up). */
  expected_remaining_reason: ServerReason | null;
  slices_ahead: number | null;
  result: Quote | null;
  error: { code: string; message: string } | null;
}

export type JobStep = 'queued' | 'preparing' | 'slicing' | 'pricing';

/** How far a price is while the slice runs: the estimate to show, the step it is at and the time left. */
export interface Pricing {
  percent: number;
  estimate: Estimate | null;
  step: JobStep | null;
  /** The server's latest figure of the time left, as read (time-left.ts decides what is shown of it). */
  reading: TimeLeftReading | null;
  /** The time left the shopper is shown, and the page's clock (ms) it is shown at: it counts down between reads. */
  timeLeft?: TimeLeft | null;
  now?: number;
}

/** What the shopper picked from the offer; quantity never re-slices, the rest are choices the server prices. */
export interface Selection {
  material: string;
  color: string;
  /** The id of one of the offer's quality presets. */
  quality: string;
  infill: number;
  quantity: number;
  /** The id of one of the offer's lead times; '' when it offers none. */
  lead_time: string;
}

/** Detail of `sq-error`. */
export interface ErrorDetail {
  code: string;
  message: string;
  retryable: boolean;
}

/** What both `sq-quote` and `sq-add-to-cart` say about a priced line. */
export interface PricedLine {
  quote_id: string;
  file_id: string;
  material: string;
  color: string;
  quantity: number;
  unit_price: number;
  total_price: number;
  currency: string;
  estimated_time: string;
  estimated_time_seconds: number;
  filament_weight: number;
  /** The id of the quality preset, its label and its layer height in mm. */
  quality: string;
  quality_label: string;
  layer_height: number;
  /** Infill in percent. */
  fill_density: number;
  /** Unit, scale, orientation, rotation and size on the plate as the server will print it; null if it stated none. */
  placement: Placement | null;
  expires_at: string;
  /** Verify with your quote signing secret on your server before charging (docs/quote-signatures.md). */
  signature: QuoteSignature;
}

/** Detail of `sq-quote`. */
export interface QuoteDetail extends PricedLine {
  cached: boolean;
}

/**
 * Detail of `sq-estimate`: the instant estimate while the part's upload or slice runs. Not a price: never charge
 * it. `file_id` is null for the first estimate, made before the upload has arrived.
 */
export interface EstimateDetail {
  file_id: string | null;
  estimate: Estimate;
}

/** Detail of `sq-add-to-cart`: everything the shop needs to charge for and make the part. */
export interface AddToCartDetail extends PricedLine {
  /** This add to the cart, as the shop's orders and the `widget.added_to_cart` webhook name it. */
  cart_line_id: string;
  /** The file's revision that was priced (every rescale makes a new one); also in the signature. */
  file_revision: number;
  file_name: string;
  subtotal: number;
  /**
   * The part's minimum price with its tax, as the cart line has it (the floor a quantity break stops at); null: no
   * minimum, or a line recorded before the cart kept it.
   */
  minimum_unit_price: Exclude<CartLine['minimum_unit_price'], undefined>;
  minimum_line_adjustment: number;
  /** One line for a cart or an order: "PLA, White · Standard · 0.2 mm layers · 20 % infill · mm, ×1 · as uploaded". */
  summary: string;
  /** A 128×128 PNG data URL of the preview; '' when no 3D preview could be drawn. */
  thumbnail: string;
}

/** Detail of `sq-add-to-cart` with `multiple`: one line per part added, each as a single part's event says it. */
export interface AddToCartLinesDetail {
  lines: AddToCartDetail[];
}
