// The slicing cache key: the canonical mesh plus the exact PrusaSlicer configuration we generate from the
// resolved settings. Price-only fields never reach that configuration, so re-pricing never re-slices, and a
// change to the mapping or to how G-code is read changes the key by itself.
import { createHash } from 'node:crypto';
import type { ResolvedSettings } from '../../shared/settings.ts';
import { buildSliceConfig } from '../slicer/config.ts';
import { STATS_REVISION } from '../slicer/gcode-stats.ts';

export function slicingKey(meshSha256: string, s: ResolvedSettings, slicerVersion: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ mesh: meshSha256, slicer: slicerVersion, stats: STATS_REVISION }))
    .update(buildSliceConfig(s).ini)
    .digest('hex');
}
