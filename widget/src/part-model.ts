// What the browser knows of a part's model before the server does: its size against the printer's build volume, the
// model rescaled as the server rescales it, and the plain-words refusals of a file too large or a model too big.
import type { EstimateSettings } from '../../shared/estimate/index.ts';
import { WidgetError } from './errors.ts';
import { dimensions } from './format.ts';
import type { ParsedPreview } from './parse-protocol.ts';
import type { ModelSummary } from './state.ts';
import type { BuildVolume, WidgetConfig } from './types.ts';

/** The shop's published slice settings, as the estimator reads them (the fields it needs are all there). */
export const publishedSettings = (config: WidgetConfig): EstimateSettings | null =>
  (config.slice_settings as EstimateSettings | null | undefined) ?? null;

export function summarize(name: string, parsed: ParsedPreview, volume: BuildVolume): ModelSummary {
  // The server turns or lays down a model that does not fit as uploaded, and may lay a long one diagonally
  // across the plate: only what cannot fit either way is refused here, before any upload.
  const [short = 0, , long = 0] = [...parsed.size].sort((a, b) => a - b);
  const [low = 0, mid = 0, high = 0] = [volume.x, volume.y, volume.z].sort((a, b) => a - b);
  const fits = short <= low && long <= Math.hypot(mid, high);
  return { name, size: parsed.size, volume: parsed.volume, triangles: parsed.triangles, fits };
}

/** The preview of a model rescaled on the server by `factor`. */
export function scaleParsed(p: ParsedPreview, factor: number): ParsedPreview {
  const grow = (v: [number, number, number]) => v.map((x) => x * factor) as [number, number, number];
  return {
    ...p,
    positions: p.positions.map((x) => x * factor),
    size: grow(p.size),
    min: grow(p.min),
    volume: p.volume * factor ** 3,
  };
}

export function tooLarge(size: number, limit: number): WidgetError {
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  return new WidgetError(
    'file_too_large',
    `The file is ${mb(size)}; this shop accepts files up to ${mb(limit)}.`,
    false,
  );
}

export function doesNotFit(size: [number, number, number], v: BuildVolume): WidgetError {
  return new WidgetError(
    'does_not_fit',
    `The model (${dimensions(size)}) does not fit the printer's ${dimensions([v.x, v.y, v.z])} build volume.`,
    false,
  );
}
