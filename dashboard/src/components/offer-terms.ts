// The infill choices and the terms of the offer editor: quantity range, minimum prices (in the account
// currency) and lead time. Quantity breaks and delivery options have their own rows (offer-breaks.ts,
// offer-delivery.ts).
import { html, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { DEFAULT_MAX_SLICE_SECONDS } from '../../../shared/offer.ts';
import { fieldId, type InfillRow, infillRow, type OfferDraft } from '../lib/offer-draft.ts';
import { addOnEnter, defaultSelect, type EditorContext, errorText, takeAddText, textField } from './offer-controls.ts';

export function infillSection(c: EditorContext): TemplateResult {
  const d = c.draft;
  return html`<fieldset class="field-group offer-group" id=${fieldId('infill_options')} tabindex="-1"
    aria-describedby="of-infill-hint">
    <legend>Infill</legend>
    <p class="hint" id="of-infill-hint">Infill densities shoppers may pick, in percent; the shop lists them from
      lowest to highest.</p>
    ${errorText(c, 'infill_options')}
    <ul class="color-list infill-list">
      ${repeat(
        d.infill,
        (r) => r.key,
        (r, i) => infillChip(c, r, i),
      )}
      <li class="add-row add-chip">
        <label for="of-add-infill" class="visually-hidden">New infill density in percent</label>
        <input id="of-add-infill" type="text" inputmode="decimal" autocomplete="off" placeholder="New %"
          @keydown=${addOnEnter} />
        <button type="button" class="btn btn-small" @click=${(e: Event) => addInfill(c, e)}>Add infill</button>
      </li>
    </ul>
    ${defaultSelect(c, {
      path: 'default_infill',
      label: 'Preselected infill',
      current: d.defaultInfill,
      rows: d.infill.map((r) => ({ key: r.key, text: `${r.value} %` })),
      set: (key) => c.edit((x) => (x.defaultInfill = key)),
    })}
  </fieldset>`;
}

function infillChip(c: EditorContext, r: InfillRow, i: number): TemplateResult {
  const path = `infill_options.${i}`;
  const field = textField(c, path, {
    label: `Infill option ${i + 1} (%)`,
    hiddenLabel: true,
    value: r.value,
    inputmode: 'decimal',
    onInput: (v) => c.edit(() => (r.value = v)),
  });
  const say = `Infill ${r.value} % removed.`;
  const remove = () => c.edit((d) => removeInfill(d, r.key), { say, focus: 'of-add-infill' });
  return html`<li class="color-chip ${c.problem(path) ? 'chip-invalid' : ''}">
    ${field}<span class="unit" aria-hidden="true">%</span>
    <button type="button" class="btn btn-small btn-icon btn-danger-quiet" aria-label="Remove infill ${r.value} %"
      title="Remove" @click=${remove}><span aria-hidden="true">✕</span></button>
  </li>`;
}

function removeInfill(d: OfferDraft, key: number) {
  d.infill = d.infill.filter((y) => y.key !== key);
  if (d.defaultInfill === key) d.defaultInfill = d.infill[0]?.key ?? 0;
}

function addInfill(c: EditorContext, e: Event) {
  const { text, input } = takeAddText(e);
  if (!text) return c.edit(() => undefined, { say: 'Type a percentage first.', focus: input.id });
  c.edit((d) => d.infill.push(infillRow(text)), { say: `Infill ${text} % added.`, focus: input.id });
}

export function termsSection(c: EditorContext): TemplateResult {
  const d = c.draft;
  const cur = c.currency;
  const set =
    (
      field:
        | 'quantityMin'
        | 'quantityMax'
        | 'minimumPrice'
        | 'minimumLinePrice'
        | 'leadTime'
        | 'maxSliceSeconds'
        | 'contact'
        | 'requestHours'
        | 'requestAmount',
    ) =>
    (v: string) =>
      c.edit((x) => (x[field] = v));
  return html`<fieldset class="field-group offer-group" aria-describedby="of-terms-hint">
    <legend>Quantities, minimum prices and lead time</legend>
    <p class="hint" id="of-terms-hint">Amounts are in your account currency, ${cur} (set in your global settings
      profile).</p>
    <div class="field-pair">
      ${textField(c, 'quantity.min', {
        label: 'Minimum quantity per line',
        value: d.quantityMin,
        inputmode: 'numeric',
        onInput: set('quantityMin'),
      })}
      ${textField(c, 'quantity.max', {
        label: 'Maximum quantity per line',
        value: d.quantityMax,
        inputmode: 'numeric',
        onInput: set('quantityMax'),
      })}
    </div>
    <div class="field-pair">
      ${textField(c, 'minimum_price', {
        label: html`Minimum price per part <span class="unit">(${cur})</span>`,
        value: d.minimumPrice,
        inputmode: 'decimal',
        hint: 'No part is priced below this. Empty: no minimum.',
        onInput: set('minimumPrice'),
      })}
      ${textField(c, 'minimum_line_price', {
        label: html`Minimum price per line <span class="unit">(${cur})</span>`,
        value: d.minimumLinePrice,
        inputmode: 'decimal',
        onInput: set('minimumLinePrice'),
        hint: 'A cart line (unit price × quantity) costs at least this; the cart shows the difference. Empty: none.',
      })}
    </div>
    ${textField(c, 'lead_time', {
      label: 'Lead time',
      value: d.leadTime,
      maxlength: 200,
      placeholder: 'e.g. Ships in 3–5 business days',
      hint: 'Shown to shoppers under the options. Empty: none.',
      onInput: set('leadTime'),
    })}
    ${textField(c, 'max_slice_seconds', {
      label: html`Most slicer time per part <span class="unit">(seconds)</span>`,
      value: d.maxSliceSeconds,
      inputmode: 'numeric',
      placeholder: String(DEFAULT_MAX_SLICE_SECONDS),
      hint: `Shoppers' parts predicted to take longer to slice are refused before slicing, with the reason; quote them through the API instead. Empty: ${DEFAULT_MAX_SLICE_SECONDS} s.`,
      onInput: set('maxSliceSeconds'),
    })}
    <div class="field-pair">
      ${textField(c, 'request_quote_above.hours', {
        label: html`Request a quote above <span class="unit">(hours per part)</span>`,
        value: d.requestHours,
        inputmode: 'decimal',
        hint: 'Parts that print longer are not sold at once: shoppers send you a request, which you price in Orders. Empty: no limit.',
        onInput: set('requestHours'),
      })}
      ${textField(c, 'request_quote_above.amount', {
        label: html`Request a quote above <span class="unit">(line total, ${cur})</span>`,
        value: d.requestAmount,
        inputmode: 'decimal',
        hint: 'Lines that cost more become a request too. Empty: no limit.',
        onInput: set('requestAmount'),
      })}
    </div>
    ${errorText(c, 'request_quote_above')}
    ${quotationFields(c, set('contact'))}
  </fieldset>`;
}

/** What a shopper's kept quote and its PDF say besides the price: the shop's contact, and the cost breakdown or not. */
function quotationFields(c: EditorContext, setContact: (v: string) => void): TemplateResult {
  const id = fieldId('show_cost_breakdown');
  return html`${textField(c, 'contact', {
    label: 'Contact on quotes',
    value: c.draft.contact,
    maxlength: 200,
    placeholder: 'e.g. orders@shop.example · +1 555 0100',
    hint: 'Printed on a shopper’s saved quote and its PDF. Empty: no contact line (your login e-mail is never shown).',
    onInput: setContact,
  })}
    <div class="field field-check">
      <input id=${id} type="checkbox" .checked=${c.draft.showCostBreakdown} aria-describedby="${id}-hint"
        @change=${(e: Event) => c.edit((x) => (x.showCostBreakdown = (e.target as HTMLInputElement).checked))} />
      <label for=${id}>Show shoppers the cost breakdown</label>
      <span class="hint" id="${id}-hint">Material, machine time, energy and fee lines in the widget’s answers and
        on the PDF. Off: shoppers see the price only; your API token always sees the breakdown.</span>
    </div>`;
}
