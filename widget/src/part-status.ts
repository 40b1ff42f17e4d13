// Where a part is on its way to a price, in the words a row of <slice-quote multiple> shows (parts-view.ts) and the
// notes about "Add all to cart" read (add-all-note.ts, several-parts.ts).
import type { PartState } from './state.ts';
import { unitQuestion } from './unit-offer.ts';

/**
 * Where a part is, in the words a row shows: `queued` until its turn comes to be read; `confirm-size` while it is
 * priced at a size in doubt (the unit offer waits for an answer), which is not yet a price to sell.
 */
export type PartStatus =
  | 'queued'
  | 'reading'
  | 'uploading'
  | 'checking'
  | 'pricing'
  | 'confirm-size'
  | 'priced'
  | 'failed';

export function partStatus(s: PartState): PartStatus {
  if (s.error) return 'failed';
  if (s.parsing) return 'reading';
  if (s.uploadProgress !== null) return s.uploadProgress >= 1 ? 'checking' : 'uploading';
  if (s.rescaling) return 'checking';
  if (s.quoting !== null) return 'pricing';
  if (!s.quote) return 'queued';
  return unitQuestion(s.file, s.unitKept) ? 'confirm-size' : 'priced';
}
