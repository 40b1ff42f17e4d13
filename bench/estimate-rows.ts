// The estimator benchmark's rows: one (model, setting) pair's estimate against its real slice, and the summaries the
// tables print (median and 90th percentile of the errors, range coverage and width). Shared by bench/estimate.ts
// and bench/estimate-coarse.ts.
import { type Calibration, type Estimate, scaleFromExact } from '../shared/estimate/index.ts';
import { type BenchModel, type RealSlice, VARIANTS, type Variant } from './estimate-corpus.ts';

export interface Pair {
  model: BenchModel;
  variant: Variant;
  real: RealSlice;
}

export interface Row {
  model: string;
  variant: string;
  real_g: number;
  estimate_g: number;
  weight_error: number;
  real_s: number;
  estimate_s: number;
  time_error: number;
  weight_inside: boolean;
  time_inside: boolean;
  /** Half the announced range's width relative to the estimate. */
  weight_half_width: number;
  time_half_width: number;
  /** Error of the figure scaled from this model's default slice (scaleFromExact); null for the default itself. */
  scaled_weight_error: number | null;
  scaled_time_error: number | null;
}

export const median = (xs: number[]) => quantileOf(xs, 0.5);
export function quantileOf(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const pos = (s.length - 1) * q;
  return s[Math.floor(pos)]! + (s[Math.ceil(pos)]! - s[Math.floor(pos)]!) * (pos - Math.floor(pos));
}
export const pct = (x: number) => Math.round(x * 1000) / 10;
export const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** The rows of estimates made elsewhere (the coarse stage's); `ratio`: the calibration whose ratio ranges scale an
 *  estimate from the model's default slice, null for none. */
export function rowsFrom(pairs: Pair[], estimates: Estimate[], ratio: Calibration | null): Row[] {
  const gramsOf = (p: Pair) => (p.real.volume_mm3 / 1000) * p.variant.settings.material.density;
  return pairs.map((pair, i) => {
    const { model, variant, real } = pair;
    const e = estimates[i]!;
    const realG = gramsOf(pair);
    const base = pairs.findIndex((p) => p.model === model && p.variant.name === VARIANTS[0]!.name);
    const scaled =
      ratio && base >= 0 && base !== i
        ? scaleFromExact(
            { filament_weight_g: gramsOf(pairs[base]!), estimated_time_seconds: pairs[base]!.real.time_s },
            estimates[base]!,
            e,
            ratio,
          )
        : null;
    return {
      model: model.name,
      variant: variant.name,
      real_g: round(realG, 3),
      estimate_g: round(e.filament_weight_g, 3),
      weight_error: Math.abs(e.filament_weight_g - realG) / realG,
      real_s: real.time_s,
      estimate_s: Math.round(e.estimated_time_seconds),
      time_error: Math.abs(e.estimated_time_seconds - real.time_s) / real.time_s,
      weight_inside: realG >= e.weight_range[0] && realG <= e.weight_range[1],
      time_inside: real.time_s >= e.time_range[0] && real.time_s <= e.time_range[1],
      weight_half_width: (e.weight_range[1] - e.weight_range[0]) / 2 / e.filament_weight_g,
      time_half_width: (e.time_range[1] - e.time_range[0]) / 2 / e.estimated_time_seconds,
      scaled_weight_error: scaled ? Math.abs(scaled.filament_weight_g - realG) / realG : null,
      scaled_time_error: scaled ? Math.abs(scaled.estimated_time_seconds - real.time_s) / real.time_s : null,
    };
  });
}

export function summary(rows: Row[]) {
  return {
    slices: rows.length,
    weight_error_median_pct: pct(median(rows.map((r) => r.weight_error))),
    weight_error_p90_pct: pct(
      quantileOf(
        rows.map((r) => r.weight_error),
        0.9,
      ),
    ),
    time_error_median_pct: pct(median(rows.map((r) => r.time_error))),
    time_error_p90_pct: pct(
      quantileOf(
        rows.map((r) => r.time_error),
        0.9,
      ),
    ),
    weight_inside_range_pct: pct(rows.filter((r) => r.weight_inside).length / rows.length),
    time_inside_range_pct: pct(rows.filter((r) => r.time_inside).length / rows.length),
    both_inside_range_pct: pct(rows.filter((r) => r.weight_inside && r.time_inside).length / rows.length),
    weight_half_width_median_pct: pct(median(rows.map((r) => r.weight_half_width))),
    time_half_width_median_pct: pct(median(rows.map((r) => r.time_half_width))),
    scaled_weight_error_median_pct: pct(median(scaledOf(rows, 'scaled_weight_error'))),
    scaled_time_error_median_pct: pct(median(scaledOf(rows, 'scaled_time_error'))),
  };
}

const scaledOf = (rows: Row[], key: 'scaled_weight_error' | 'scaled_time_error') =>
  rows.map((r) => r[key]).filter((v): v is number => v !== null);
