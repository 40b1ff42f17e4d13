// The values of the quote pipeline that the request half and the worker half both hold: what a quote was resolved
// to, and the estimate it shows while its slice runs. Types only, at the bottom of the folder: every file may
// import them, and they import no file of it.

import type { Estimate } from '../../shared/estimate/index.ts';
import type { Conversion } from '../../shared/pricing.ts';
import type { ResolvedSettings } from '../../shared/settings.ts';
import type { QuotePlacement } from '../placement/index.ts';

/** What a quote was resolved to: its settings and their sources, the material profile, the currency conversion. */
export interface StoredResolution {
  settings: ResolvedSettings;
  sources: Record<string, string>;
  material_profile_id: string;
  conversion: Conversion | null;
  /** Absent on quotes created before placements were stored. */
  placement?: QuotePlacement;
}

/** What a quote shows of its estimate (the `estimate` object of the API). */
export interface PresentedEstimate {
  total_price: number;
  price_range: [number, number];
  currency: string;
  filament_weight: number;
  weight_range: [number, number];
  estimated_time_seconds: number;
  time_range: [number, number];
  method: Estimate['method'];
  samples: number;
  /** Whose real slices calibrated it: the account's own (this printer and material), or the shipped set. */
  calibration: 'account' | 'shipped';
}
