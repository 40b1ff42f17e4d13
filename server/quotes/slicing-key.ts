// The slicing cache key: the canonical mesh plus the exact PrusaSlicer configuration we generate from the
// resolved settings. That configuration holds only the settings shown to change the extruded volume or the print
// time (test/slice-effects.test.ts): price fields, temperatures, fan speeds, filament density and diameter never
// reach it, so changing them reuses the slice. A change to the mapping or to how G-code is read (STATS_REVISION,
// which also marks what a cached row holds) changes the key by itself.
// The placement (scale and rotation) is part of the key unless it is the identity, so keys of models printed as
// uploaded do not depend on it.
import { createHash } from 'node:crypto';
import type { ResolvedSettings } from '../../shared/settings.ts';
import { buildSliceConfig, isIdentity, type SliceTransform, STATS_REVISION } from '../slicer/index.ts';

export function slicingKey(
  meshSha256: string,
  s: ResolvedSettings,
  slicerVersion: string,
  transform?: SliceTransform,
): string {
  const placed = transform && !isIdentity(transform) ? { transform } : {};
  return createHash('sha256')
    .update(JSON.stringify({ mesh: meshSha256, slicer: slicerVersion, stats: STATS_REVISION, ...placed }))
    .update(buildSliceConfig(s).ini)
    .digest('hex');
}
