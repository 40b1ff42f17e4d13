// Shapes of the widget's API responses (GET /v2/widget/config, uploads, quotes, jobs, cart) and of
// the DOM events the element emits. Only the fields the widget reads are listed.

export interface WidgetMaterial {
  name: string;
  colors: string[];
  density: number | null;
  price_per_kg: number | null;
}

export interface BuildVolume {
  x: number;
  y: number;
  z: number;
}

export interface WidgetConfig {
  shop_name: string;
  currency: string;
  max_upload_bytes: number;
  build_volume: BuildVolume;
  default_material: string;
  materials: WidgetMaterial[];
  layer_heights: number[];
  infill_options: number[];
  /** The printer profile's own values, preselected when they are among the options. */
  default_layer_height?: number;
  default_infill?: number;
}

export interface UploadTicket {
  upload_id: string;
  expires_at: string;
  upload_url: string;
}

export interface FileRecord {
  file_id: string;
  name: string;
  format: string;
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
  total_price: number;
  currency: string;
}

/** What the shopper picked; quantity never re-slices, the rest are quote settings. */
export interface Selection {
  material: string;
  color: string;
  layerHeight: number;
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
}

/** Detail of `sq-quote`. */
export interface QuoteDetail extends PricedLine {
  layer_height: number;
  fill_density: number;
  cached: boolean;
}

/** Detail of `sq-add-to-cart`. */
export interface AddToCartDetail extends PricedLine {
  file_name: string;
  /** A 128×128 PNG data URL of the preview; '' when no 3D preview could be drawn. */
  thumbnail: string;
}
