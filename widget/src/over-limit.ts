// What a part learned of the shop's slicer limit (docs/limits.md, "Slicer time"): a quality the shop refused as
// over it (`model_too_complex` with `details.over_limit`) is marked in the Quality select ("Fine · 0.1 mm — over the
// limit"), for as long as it holds: the same upload at the same size, with the same other choices (another material
// or infill slices in another time, so the mark is not carried over to them).
// The option stays selectable: the shopper may still want that quality (the refusal then offers the finest quality
// within the limit, and a request for the shop's own price), and a disabled option says nothing about why.
import type { SlicerLimit } from './errors.ts';
import { quoteRequest } from './quote-flow.ts';
import type { FileRecord, Selection } from './types.ts';

/** The qualities refused as over the limit, and the upload and other choices they were refused with. */
export interface OverLimit {
  key: string;
  qualities: string[];
}

/**
 * What is added to an over-limit quality's label in the select. Short, so that "Fine · 0.1 mm — over the limit" is not
 * cut off in a phone's select while it is the one chosen (the refusal beside it says which limit, in full).
 */
export const OVER_LIMIT_MARK = ' — over the limit';

/** The upload at its size and every choice but the quality: what the slicer's time depends on besides it. */
function limitKey(file: FileRecord | null, sel: Selection | null): string | null {
  if (!file || !sel) return null;
  const { quality: _quality, ...others } = quoteRequest(sel).choices;
  return `${file.file_id}@${file.unit}×${file.scale}:${JSON.stringify(others)}`;
}

/** `known` with the quality a refusal named as over the limit added (known marks for other choices are dropped). */
export function learnOverLimit(
  known: OverLimit | null,
  file: FileRecord | null,
  sel: Selection | null,
  limit: SlicerLimit,
): OverLimit | null {
  const key = limitKey(file, sel);
  if (!key || !limit.over) return known;
  const qualities = known?.key === key ? known.qualities : [];
  return qualities.includes(limit.over.quality) ? known : { key, qualities: [...qualities, limit.over.quality] };
}

/** The qualities known to be over the limit with the part's present upload and other choices. */
export function overLimitNow(s: {
  overLimit: OverLimit | null;
  file: FileRecord | null;
  selection: Selection | null;
}): readonly string[] {
  const key = limitKey(s.file, s.selection);
  return key && s.overLimit?.key === key ? s.overLimit.qualities : [];
}
