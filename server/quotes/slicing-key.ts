// The slicing cache key: the canonical mesh plus every resolved setting that can change the slice.
// Price-only fields (prices, fees, tax, energy cost, hourly cost) are left out, so re-pricing never re-slices.
import { createHash } from 'node:crypto';
import { SLICE_FIELDS, type ResolvedSettings } from '../../shared/settings.ts';

// Bump when the generated PrusaSlicer configuration changes in a way that changes slices.
const ENGINE_CONFIG_VERSION = 1;

export function slicingKey(meshSha256: string, s: ResolvedSettings, slicerVersion: string): string {
  const sections = { printer_config: s.printer, material_config: s.material, quote_config: s.quote } as Record<string, Record<string, unknown>>;
  const relevant = SLICE_FIELDS.map((d) => [`${d.section}.${d.name}`, sections[d.section][d.name]]);
  return createHash('sha256')
    .update(JSON.stringify({ mesh: meshSha256, slicer: slicerVersion, engine: ENGINE_CONFIG_VERSION, settings: relevant }))
    .digest('hex');
}
