// Why "Add all to cart" cannot add every part now, naming each row it is about and why: a row whose quantity is
// wrong or whose size is in doubt holds back every part (nothing is sold at a size in doubt, all or nothing); a row
// still being priced holds them back until it is; a row that could not be priced is left out. One sentence per
// reason; a row the merchant's rule (`request_quote_above`) sends to Request a quote is left out, said as such. It
// stands under the list, above the bar with the total and the button (which it describes): in the phone's
// sticky bar a note naming several rows would take the screen. What became of the last press (a line the cart
// refused: nothing was added) is said in the bar, under the button.
import { html, nothing, type TemplateResult } from 'lit';
import type { PartFlow } from './part-flow.ts';
import { partStatus } from './part-status.ts';

/** A row of the list and the name the notes give it: "part 2 (lid.stl)". */
export interface NamedRow {
  part: PartFlow;
  name: string;
  /** Priced above the merchant's `request_quote_above`: the shop prices it itself, on request. */
  byShop: boolean;
}

const WORKING = new Set(['queued', 'reading', 'uploading', 'checking', 'pricing']);

/** "part 1 (a.stl)", "part 1 (a.stl) and part 3 (c.stl)", "part 1 (a.stl), part 2 (b.stl) and part 3 (c.stl)". */
function names(rows: NamedRow[]): string {
  const all = rows.map((r) => r.name);
  return all.length < 2 ? (all[0] ?? '') : `${all.slice(0, -1).join(', ')} and ${all.at(-1)}`;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The sentences, most pressing first; none when every part can be added as it is. */
export function addAllBlockers(rows: NamedRow[], refusedId: number | null, adding: boolean): string[] {
  // The row whose line the cart refused is named by the refusal note, in its own words.
  const where = (test: (r: NamedRow) => boolean) => rows.filter((r) => r.part.id !== refusedId && test(r));
  const quantity = where((r) => !!r.part.state.quantityError);
  const size = where((r) => !r.part.state.error && r.part.unitPending);
  const working = adding ? [] : where((r) => WORKING.has(partStatus(r.part.state)));
  const failed = where((r) => partStatus(r.part.state) === 'failed');
  const byShop = where((r) => r.byShop && !r.part.state.quantityError);
  const several = (list: NamedRow[], one: string, many: string) => (list.length === 1 ? one : many);
  return [
    quantity.length
      ? `Fix the ${several(quantity, 'quantity', 'quantities')} of ${names(quantity)} to add your parts to the cart.`
      : '',
    size.length
      ? `Answer the size ${several(size, 'question', 'questions')} of ${names(size)} to add your parts to the cart.`
      : '',
    working.length ? `${capital(names(working))} ${several(working, 'is', 'are')} still being priced.` : '',
    failed.length
      ? `${capital(names(failed))} could not be priced and ${several(failed, 'is', 'are')} not added: ${several(failed, 'its row says', 'their rows say')} why.`
      : '',
    byShop.length
      ? `The shop prices ${names(byShop)} itself, so ${several(byShop, 'it is', 'they are')} not added: request a quote in ${several(byShop, 'its row', 'their rows')}.`
      : '',
  ].filter(Boolean);
}

/** Under the list: every sentence that applies (the button's description). */
export function renderAddAllBlockers(rows: NamedRow[], refusedId: number | null, adding: boolean): TemplateResult {
  const sentences = addAllBlockers(rows, refusedId, adding);
  return html`<p id="add-all-blockers" class="hint add-blockers" part="add-all-blockers">${
    sentences.length ? sentences.join(' ') : nothing
  }</p>`;
}

/** In the bar, under the button: the last press added nothing, since the cart refused this row's line. */
export function renderRefusal(rows: NamedRow[], refusedId: number | null): TemplateResult {
  const refused = rows.find((r) => r.part.id === refusedId);
  return html`<p id="add-all-note" class="hint add-note" part="add-all-note">${
    refused
      ? `Nothing was added to your cart: the cart refused ${refused.name}. Remove it, or try again, to add the others.`
      : nothing
  }</p>`;
}
