// Shapes of the widget's API responses (GET /v2/widget/config, uploads, quotes, jobs, cart) and of
// the DOM events the element emits. Only the fields the widget reads are listed.

export interface WidgetMaterial {
  name: string;
  colors: string[];
}

/** A named quality preset of the merchant's offer. */
export interface WidgetQuality {
  id: string;
  label: string;
  layer_height: number;
}

export interface BuildVolume {
  x: number;
  y: number;
  z: number;
}

/** The merchant's offer as GET /v2/widget/config serves it: the shopper picks only from it. */
export interface WidgetConfig {
  shop_name: string;
  currency: string;
  max_upload_bytes: number;
  build_volume: BuildVolume;
  materials: WidgetMaterial[];
  default_material: string;
  qualities: WidgetQuality[];
  default_quality: string;
  infill_options: number[];
  default_infill: number;
  quantity: { min: number; max: number };
  minimum_price: number | null;
  minimum_line_price: number | null;
  lead_time: string | null;
}

export interface UploadTicket {
  upload_id: string;
  expires_at: string;
  upload_url: string;
  /** This shopper's session: sent back with every call about their uploads and quotes. */
  shopper_token?: string;
}

/** The choices a quote was made with, as the server filled them in. */
export interface QuoteChoices {
  material: string;
  color: string | null;
  quality: string;
  quality_label: string;
  infill: number;
  quantity: number;
}

/** What the merchant's backend verifies with its quote signing secret before charging. */
export interface QuoteSignature {
  payload: string;
  hmac_sha256: string;
}

/** A `unit_suspect` warning: the model's size suggests another unit. */
export interface UnitSuspect {
  code: 'unit_suspect';
  message: string;
  suggested_scale: number;
  suggested_unit?: string;
}

export interface FileRecord {
  file_id: string;
  name: string;
  format: string;
  unit: string;
  scale: number;
  /** Parser findings (strings) and objects with a `code`, such as `unit_suspect`. */
  warnings?: (string | { code: string; message: string })[];
}

/** How the part is printed (docs/placement.md): the unit its numbers were read in, an extra scale, how it lies on the plate. */
export interface Placement {
  unit: string;
  scale: number;
  /** as_uploaded; turned about Z on the plate; laid down on another side. */
  orientation: 'as_uploaded' | 'turned' | 'laid_down';
  /** Degrees about the plate's X, then Y, then Z axis. */
  rotation: { x: number; y: number; z: number };
  /** Size on the plate after placement, mm. */
  dimensions: { x: number; y: number; z: number };
}

export interface Quote {
  quote_id: string;
  total_price: number;
  currency: string;
  estimated_time: string;
  estimated_time_seconds: number;
  filament_weight: number;
  printInfo: { technology: string; material: string; color: string };
  cached?: boolean;
  choices: QuoteChoices | null;
  expires_at: string;
  signature: QuoteSignature;
  placement?: Placement;
}

export interface JobAccepted {
  job_id: string;
  status_url: string;
}

export interface Job {
  status: 'queued' | 'processing' | 'completed' | 'failed';
  progress: number;
  result: Quote | null;
  error: { code: string; message: string } | null;
}

export interface CartLine {
  quote_id: string;
  quantity: number;
  unit_price: number;
  subtotal: number;
  /** Raises the line to the shop's minimum line price; total_price = subtotal + this. */
  minimum_line_adjustment: number;
  total_price: number;
  currency: string;
  choices: QuoteChoices | null;
  expires_at: string;
  signature: QuoteSignature;
}

/** What the shopper picked from the offer; quantity never re-slices, the rest are choices the server prices. */
export interface Selection {
  material: string;
  color: string;
  /** The id of one of the offer's quality presets. */
  quality: string;
  infill: number;
  quantity: number;
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

/** Detail of `sq-add-to-cart`: everything the shop needs to charge for and make the part. */
export interface AddToCartDetail extends PricedLine {
  file_name: string;
  subtotal: number;
  minimum_line_adjustment: number;
  /** One line for a cart or an order: "PLA, White · Standard · 0.2 mm layers · 20 % infill · mm, ×1 · as uploaded". */
  summary: string;
  /** A 128×128 PNG data URL of the preview; '' when no 3D preview could be drawn. */
  thumbnail: string;
}
