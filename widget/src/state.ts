// What the element knows at any moment; the view renders it and nothing else.
import type { SlicerLimit } from './errors.ts';
import type { CurrencyDisplay } from './format.ts';
import type { KeepState } from './kept-types.ts';
import type { OverLimit } from './over-limit.ts';
import type { CartLine, ErrorDetail, FileRecord, Pricing, Quote, Selection, WidgetConfig } from './types.ts';

/** Which step failed decides what "Try again" does. */
export type Stage = 'config' | 'file' | 'upload' | 'quote' | 'cart';

export interface StageError extends ErrorDetail {
  stage: Stage;
  /** Shown instead of the shopper wording of the code (the dashboard's offer preview explains itself). */
  shopper?: string;
  /** A choice over the shop's slicer limit: named, and the quality within it offered with one click. */
  slicerLimit?: SlicerLimit;
}

export interface ModelSummary {
  name: string;
  size: [number, number, number];
  volume: number;
  triangles: number;
  fits: boolean;
}

export interface WidgetState {
  config: WidgetConfig | null;
  selection: Selection | null;
  /** What is wrong with the quantity typed (the selection keeps the last valid one), else null. */
  quantityError: string | null;
  model: ModelSummary | null;
  parsing: boolean;
  /** 0..1 while the file is being sent, else null. */
  uploadProgress: number | null;
  file: FileRecord | null;
  /**
   * The last exact price. While a re-quote runs it is not shown as this choice's price (the choice's estimate is),
   * unless it still holds (`holding`).
   */
  quote: Quote | null;
  /** A re-quote runs for choices the price shown still holds for (only the colour changed): it stays, not dimmed. */
  holding: boolean;
  /** Slicing progress in percent while a quote runs, else null. */
  quoting: number | null;
  /** While the slice runs: its instant estimate, stage and expected remaining time (null before the first). */
  pricing: Pricing | null;
  adding: boolean;
  added: CartLine | null;
  /** The server recorded the add but no cart on the page took it: the shop will contact the shopper. */
  reserved: boolean;
  /** A rescale of the upload (the unit offer) is under way. */
  rescaling: boolean;
  /** The shopper answered the unit offer with "Keep this size": the part may be sold as it is. */
  unitKept: boolean;
  /** Qualities the shop refused as over its slicer limit for this upload and these other choices (over-limit.ts). */
  overLimit: OverLimit | null;
  error: StageError | null;
  dragging: boolean;
  /** The browser could not draw 3D; the dimensions are shown alone. */
  previewUnavailable: boolean;
  locale: string | undefined;
  currencyDisplay: CurrencyDisplay;
  /** "Save this quote" for the quote shown (kept-quote.ts); absent where quotes cannot be kept (a preview). */
  keep?: KeepState | null;
}

/** What one part knows: its choices and how far it got (part-flow.ts). */
export type PartState = Pick<
  WidgetState,
  | 'selection'
  | 'quantityError'
  | 'model'
  | 'parsing'
  | 'uploadProgress'
  | 'file'
  | 'quote'
  | 'holding'
  | 'quoting'
  | 'pricing'
  | 'adding'
  | 'added'
  | 'reserved'
  | 'rescaling'
  | 'unitKept'
  | 'overLimit'
  | 'error'
>;

/** What the element knows besides its parts: the shop and how to write for it. */
export type ShopState = Omit<WidgetState, keyof PartState>;

export const EMPTY_RUN = {
  model: null,
  parsing: false,
  uploadProgress: null,
  file: null,
  quote: null,
  holding: false,
  quoting: null,
  pricing: null,
  adding: false,
  added: null,
  reserved: false,
  rescaling: false,
  unitKept: false,
  overLimit: null,
  error: null,
} satisfies Partial<WidgetState>;
