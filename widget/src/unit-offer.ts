// "Looks like inches — scale ×25.4?": when the server suspects the model was drawn in another unit
// (a `unit_suspect` warning on the uploaded file), the shopper is offered the fix in one click. The
// fix is POST /v2/file/scale/{file_id}; the stored model is re-read in that unit, not re-uploaded.
// Until the shopper answers (the fix, or "Keep this size"), the part cannot be added to the cart: a part
// priced at the wrong size sells for the wrong price (a 1-inch cube read as 1 mm costs nothing).
import { html, nothing, type TemplateResult } from 'lit';
import type { FileRecord, UnitSuspect } from './types.ts';

export interface UnitOffer {
  /** The question shown to the shopper. */
  label: string;
  /** The button that accepts. */
  action: string;
  /** The body of the rescale request. */
  request: { unit: string } | { scale: number };
  /** How much larger (or smaller) the model becomes. */
  factor: number;
}

const UNIT_WORDS: Record<string, string> = {
  in: 'inches',
  cm: 'centimetres',
  m: 'metres',
  mm: 'millimetres',
  ft: 'feet',
  um: 'micrometres',
};

function suspicion(file: FileRecord): UnitSuspect | null {
  const found = (file.warnings ?? []).find(
    (w): w is UnitSuspect => typeof w === 'object' && w !== null && w.code === 'unit_suspect',
  );
  return found ?? null;
}

export function unitOffer(file: FileRecord | null): UnitOffer | null {
  const w = file && suspicion(file);
  if (!file || !w) return null;
  const factor = w.suggested_scale;
  const times = `×${+factor.toPrecision(4)}`;
  if (w.suggested_unit) {
    const words = UNIT_WORDS[w.suggested_unit] ?? w.suggested_unit;
    return {
      label: `Looks like ${words} — scale ${times}?`,
      action: `Use ${words}`,
      request: { unit: w.suggested_unit },
      factor,
    };
  }
  const request = { scale: +(file.scale * factor).toPrecision(6) };
  return { label: `Looks like the wrong unit — scale ${times}?`, action: `Scale ${times}`, request, factor };
}

/** The question, while it waits for an answer; nothing once the shopper kept the size. */
export function unitQuestion(file: FileRecord | null, kept: boolean): UnitOffer | null {
  return kept ? null : unitOffer(file);
}

/** The question and its two answers; `about` names the part for screen readers in a row of the multi-part list. */
export function renderUnitOffer(
  offer: UnitOffer,
  busy: boolean,
  accept: () => void,
  keep: () => void,
  about?: string,
): TemplateResult {
  const forPart = about ? html`<span class="visually-hidden"> for ${about}</span>` : nothing;
  return html`
    <div class="unit-offer" part="unit-offer" role="status">
      <span>${offer.label}</span>
      <button type="button" part="button unit-offer-button" ?disabled=${busy} @click=${accept}>
        ${busy ? 'Scaling…' : offer.action}${forPart}
      </button>
      <button type="button" part="button unit-keep-button" ?disabled=${busy} @click=${keep}>Keep this size${forPart}</button>
    </div>
  `;
}

/** Why a part priced at a size in doubt cannot go to the cart yet (beside Add to cart, or in its row). */
export function renderUnitPending(what = 'the part'): TemplateResult {
  return html`<p class="hint add-note" part="unit-pending">Answer the size question above to add ${what} to your cart.</p>`;
}
