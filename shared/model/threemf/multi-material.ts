// Parts printed in several materials or colours. A quote slices one filament, so a multi-colour 3MF cannot be
// priced automatically yet: it is accepted, with a `multi_material` warning, and a storefront offers the shopper a
// request for the shop's own price (docs/model-files.md). Three ways a file says it:
// - the Materials extension: objects and triangles name a property (pid, pindex / p1 p2 p3) of a basematerials,
//   colorgroup, texture or composite resource; more than one property in use is more than one colour;
// - PrusaSlicer's project data (Metadata/Slic3r_PE_model.config): objects and volumes assigned to extruders;
// - painting: PrusaSlicer's `slic3rpe:mmu_segmentation` and Bambu Studio's `paint_color` on triangles.
import { type ModelWarning, modelWarning } from '../warnings.ts';

export const NS_SLIC3RPE = 'http://schemas.slic3r.org/3mf/2017/06';

export type Assignment = 'materials' | 'extruders' | 'painting';

/** What a package says of its colours, gathered while it is read: the first two properties are enough to know. */
export class ColourUse {
  private readonly properties = new Set<string>();
  painted = false;

  /** A property ("pid:index") of the part `part` in use; nothing is kept once two are known. */
  use(part: string, pid: string, index: string): void {
    if (this.properties.size < 2) this.properties.add(`${part}#${pid}:${index}`);
  }

  get several(): boolean {
    return this.properties.size > 1;
  }
}

/** The warning of a package whose parts use several colours, materials or extruders; null for one. */
export function multiMaterialWarning(use: ColourUse, extruders: number): ModelWarning | null {
  const assignment: Assignment | null =
    extruders > 1 ? 'extruders' : use.painted ? 'painting' : use.several ? 'materials' : null;
  if (!assignment) return null;
  const how = {
    extruders: `its parts are assigned to ${extruders} extruders`,
    painting: 'its surfaces are painted in several colours',
    materials: 'its parts use several colours or materials',
  }[assignment];
  const message = `The model is multi-colour (${how}); it is measured as one part in one material, and its price needs the shop's review.`;
  return modelWarning('multi_material', message, { assignment, ...(extruders > 1 ? { count: extruders } : {}) });
}
