// The offer editor's quantity breaks: a row each ("From 10 pieces, 5 % off"), added and removed in place, each
// field labelled and checked with the API's rules, its problem naming the row ("Break 2: quantity must be …").
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { TERMS_LIMITS } from '../../../shared/offer-terms.ts';
import { money } from '../lib/format.ts';
import { type BreakRow, fieldId, type OfferDraft } from '../lib/offer-draft.ts';
import { breakRow } from '../lib/offer-terms-draft.ts';
import { numberOrText } from '../lib/profile-rules.ts';
import { type EditorContext, errorText, textField } from './offer-controls.ts';

export function breaksSection(c: EditorContext): TemplateResult {
  const rows = c.draft.quantityBreaks;
  const full = rows.length >= TERMS_LIMITS.breaks;
  return html`<fieldset class="field-group offer-group" id=${fieldId('quantity_breaks')} tabindex="-1"
    aria-describedby="of-breaks-hint">
    <legend>Quantity breaks</legend>
    <p class="hint" id="of-breaks-hint">From a number of pieces on, each piece costs a percent less: the highest
      break the quantity reaches applies. ${floorText(c)} Up to ${TERMS_LIMITS.breaks} breaks; none: one price
      whatever the quantity.</p>
    ${errorText(c, 'quantity_breaks')}
    ${
      rows.length
        ? html`<ol class="offer-list">${repeat(
            rows,
            (r) => r.key,
            (r, i) => breakItem(c, r, i),
          )}</ol>`
        : nothing
    }
    <div class="add-row">
      <button type="button" class="btn" ?disabled=${full} @click=${() => addBreak(c)}>Add quantity break</button>
      ${full ? html`<span class="hint">That is the most an offer may have.</span>` : nothing}
    </div>
  </fieldset>`;
}

/** What the server does with a break that would price a part under the minimum: it stops there. */
function floorText(c: EditorContext): string {
  const typed = numberOrText(c.draft.minimumPrice);
  const floor =
    typeof typed === 'number' && typed > 0
      ? `your minimum price per part (${money(typed, c.currency)})`
      : 'the minimum price per part of your global settings';
  return `A break never takes a part below ${floor}: the discount stops there.`;
}

function addBreak(c: EditorContext) {
  const focus = fieldId(`quantity_breaks.${c.draft.quantityBreaks.length}.min_quantity`);
  const n = c.draft.quantityBreaks.length + 1;
  c.edit((d) => d.quantityBreaks.push(breakRow()), { say: `Break ${n} added: type its quantity.`, focus });
}

function removeBreak(d: OfferDraft, key: number) {
  d.quantityBreaks = d.quantityBreaks.filter((r) => r.key !== key);
}

function breakItem(c: EditorContext, r: BreakRow, i: number): TemplateResult {
  const path = `quantity_breaks.${i}`;
  const name = `break ${i + 1}`;
  const touch = { touch: r.key };
  const remove = () =>
    c.edit((d) => removeBreak(d, r.key), { say: `Break ${i + 1} removed.`, focus: fieldId('quantity_breaks') });
  return html`<li class="offer-item">
    <div class="offer-item-head">
      <span class="offer-item-title">Break ${i + 1}</span>
      ${errorText(c, path)}
      <span class="row-tools"><button type="button" class="btn btn-small btn-danger-quiet"
        aria-label="Remove ${name}" @click=${remove}>Remove</button></span>
    </div>
    <div class="field-pair">
      ${textField(c, `${path}.min_quantity`, {
        label: 'From quantity',
        value: r.quantity,
        inputmode: 'numeric',
        placeholder: 'e.g. 10',
        hint: 'Pieces in the line, at least 2; each break above the one before it.',
        onInput: (v) => c.edit(() => (r.quantity = v), touch),
      })}
      ${textField(c, `${path}.discount_percent`, {
        label: html`Discount <span class="unit">(%)</span>`,
        value: r.percent,
        inputmode: 'decimal',
        placeholder: 'e.g. 5',
        hint: `Off each piece: above 0, at most ${TERMS_LIMITS.maxDiscount}, two decimals at most.`,
        onInput: (v) => c.edit(() => (r.percent = v), touch),
      })}
    </div>
  </li>`;
}
