// Reading an import check (POST /v2/profiles/printer/{id}/check) for a merchant: whether this service's slice of
// the reference part agrees with the shop's own PrusaSlicer G-code, and what to look at when it does not.
// The bounds are docs/profiles.md's ("Reading the difference"): the G-code states grams to 0.01 g.
import type { components } from '../../../shared/api/schema.ts';

export type ProfileCheck = components['schemas']['ProfileCheck'];

/** Within these (per cent, either sign) the two slices agree. */
export const AGREEMENT = { weightPercent: 0.5, timePercent: 1 } as const;

export interface CheckReading {
  agrees: boolean;
  /** What to look at, most likely first; empty when the slices agree. */
  hints: string[];
}

const within = (percent: number | null, bound: number) => percent === null || Math.abs(percent) <= bound;
const below = (percent: number | null, bound: number) => percent !== null && percent < -bound;

const CUSTOM_GCODE =
  'Less filament or time here usually means your printer’s custom G-code (start and end, purge line, layer change) was left out: an import leaves it out unless asked. To count it, import your printer again with “Keep my custom G-code” ticked (keep_custom_gcode=true in the API; docs/profiles.md, “Custom G-code”).';
const PRESETS =
  'Slice the reference part with exactly the presets of the profile checked (printer, print and filament) and the material chosen here, without moving, rotating or scaling it. Settings the import left out (listed after the import) slice with this service’s values.';
const INFILL =
  'A gap in filament is often another infill density or pattern, other perimeters or another filament preset in your G-code.';

export function readCheck(check: ProfileCheck): CheckReading | null {
  const { difference, shop_gcode: shop, slicer } = check;
  if (!difference || !shop) return null;
  const { weight_percent: weight, time_percent: time } = difference;
  const weightOk = within(weight, AGREEMENT.weightPercent);
  if (weightOk && within(time, AGREEMENT.timePercent)) return { agrees: true, hints: [] };
  const hints: string[] = [];
  if (shop.slicer_version && shop.slicer_version !== slicer.version)
    hints.push(
      `Your G-code comes from PrusaSlicer ${shop.slicer_version}, this service slices with ${slicer.version}: another version estimates print times a few per cent apart.`,
    );
  if (below(weight, AGREEMENT.weightPercent) || below(time, AGREEMENT.timePercent)) hints.push(CUSTOM_GCODE);
  hints.push(PRESETS);
  if (!weightOk) hints.push(INFILL);
  return { agrees: false, hints };
}

/** "+0.05 %", "−1.2 %", "—" (no weight in the G-code). */
export function signedPercent(percent: number | null): string {
  if (percent === null) return '—';
  const digits = Math.abs(percent) < 10 ? 2 : 1;
  const text = Math.abs(percent).toFixed(digits);
  return `${percent > 0 ? '+' : percent < 0 ? '−' : '±'}${text} %`;
}

/** "24 min 29 s", "1 h 2 min 3 s": to the second, as the G-code states it. */
export function clockTime(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [h ? `${h} h` : '', h || m ? `${m} min` : '', `${s % 60} s`];
  return parts.filter(Boolean).join(' ');
}
