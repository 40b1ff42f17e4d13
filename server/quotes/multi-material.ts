// A multi-colour part (the `multi_material` upload warning, shared/model/threemf/multi-material.ts) is sliced in one
// filament, so its automatic price would be wrong: a storefront shopper is refused before any slicing, and the widget
// offers "Request a quote" for the shop's own price (docs/widget.md). An API caller (the shop's own programs) gets the
// one-material price with the warning, as before.
import type { FileRow } from '../files/index.ts';
import type { JobError } from './sql.ts';

export function multiMaterialRefusal(file: Pick<FileRow, 'warnings'>): JobError | null {
  const warning = file.warnings.find((w) => w.code === 'multi_material');
  if (!warning) return null;
  return {
    code: 'multi_material',
    status: 422,
    message:
      'The part is multi-colour (several colours, materials or extruders); the shop prices multi-colour parts itself.',
    details: {
      assignment: warning.assignment,
      ...(typeof warning.count === 'number' ? { count: warning.count } : {}),
    },
  };
}
