// The offer editor's delivery options: a row each with the label shoppers see, its id (following the label until
// typed), the business days until it ships and its surcharges; moved, removed and added in place, one preselected.
// Each problem names its row and field ("Delivery option 2 “Express”: business days must be …").
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { TERMS_LIMITS } from '../../../shared/offer-terms.ts';
import { type DeliveryRow, fieldId, idFromLabel, type OfferDraft } from '../lib/offer-draft.ts';
import { deliveryRow } from '../lib/offer-terms-draft.ts';
import { defaultSelect, type EditorContext, errorText, moved, moveIn, rowTools, textField } from './offer-controls.ts';
import { badge } from './page-header.ts';

export function deliverySection(c: EditorContext): TemplateResult {
  const d = c.draft;
  const full = d.leadTimes.length >= TERMS_LIMITS.leadTimes;
  return html`<fieldset class="field-group offer-group" id=${fieldId('lead_times')} tabindex="-1"
    aria-describedby="of-delivery-hint">
    <legend>Delivery options</legend>
    <p class="hint" id="of-delivery-hint">Shoppers pick one and see the date it ships; its surcharges are added to
      the line after the quantity break. Up to ${TERMS_LIMITS.leadTimes} options; none: no choice (the lead time's
      text alone).</p>
    ${errorText(c, 'lead_times')}
    ${
      d.leadTimes.length
        ? html`<ol class="offer-list">${repeat(
            d.leadTimes,
            (r) => r.key,
            (r, i) => deliveryItem(c, r, i),
          )}</ol>`
        : nothing
    }
    <div class="add-row">
      <button type="button" class="btn" ?disabled=${full} @click=${() => addOption(c)}>Add delivery option</button>
      ${full ? html`<span class="hint">That is the most an offer may have.</span>` : nothing}
    </div>
    ${
      d.leadTimes.length
        ? defaultSelect(c, {
            path: 'default_lead_time',
            label: 'Preselected delivery option',
            current: d.defaultLeadTime,
            rows: d.leadTimes.map((r, i) => ({ key: r.key, text: r.label.trim() || `Delivery option ${i + 1}` })),
            set: (key) => c.edit((x) => (x.defaultLeadTime = key)),
          })
        : errorText(c, 'default_lead_time')
    }
  </fieldset>`;
}

function addOption(c: EditorContext) {
  const focus = fieldId(`lead_times.${c.draft.leadTimes.length}.label`);
  const n = c.draft.leadTimes.length + 1;
  c.edit(
    (d) => {
      const row = deliveryRow();
      d.leadTimes.push(row);
      // The first option is preselected until the merchant picks another.
      if (d.leadTimes.length === 1) d.defaultLeadTime = row.key;
    },
    { say: `Delivery option ${n} added: give it a label.`, focus },
  );
}

function removeOption(d: OfferDraft, key: number) {
  d.leadTimes = d.leadTimes.filter((r) => r.key !== key);
  if (d.defaultLeadTime === key) d.defaultLeadTime = d.leadTimes[0]?.key ?? 0;
}

function deliveryItem(c: EditorContext, r: DeliveryRow, i: number): TemplateResult {
  const path = `lead_times.${i}`;
  const count = c.draft.leadTimes.length;
  const name = r.label.trim() || `delivery option ${i + 1}`;
  const tools = rowTools(`delivery option ${name}`, {
    index: i,
    count,
    move: (by) => c.edit((d) => moveIn(d.leadTimes, i, by), { say: moved(name, i + by + 1, count) }),
    remove: () => c.edit((d) => removeOption(d, r.key), { say: `${name} removed.`, focus: fieldId('lead_times') }),
  });
  return html`<li class="offer-item">
    <div class="offer-item-head">
      <span class="offer-item-title">Delivery option ${i + 1}</span>
      ${c.draft.defaultLeadTime === r.key ? badge('Preselected', 'info') : nothing}
      ${tools}
    </div>
    ${errorText(c, path)}
    <div class="field-pair">${nameFields(c, r, path)}</div>
    <div class="field-pair">${termFields(c, r, path)}</div>
  </li>`;
}

function nameFields(c: EditorContext, r: DeliveryRow, path: string): TemplateResult {
  const touch = { touch: r.key };
  const setLabel = (v: string) =>
    c.edit(() => {
      r.label = v;
      if (r.idFromLabel) r.id = idFromLabel(v);
    }, touch);
  const setId = (v: string) =>
    c.edit(() => {
      r.id = v;
      r.idFromLabel = false;
    }, touch);
  return html`${textField(c, `${path}.label`, {
    label: 'Label shoppers see',
    value: r.label,
    maxlength: 60,
    placeholder: 'e.g. Express',
    onInput: setLabel,
  })}
    ${textField(c, `${path}.id`, {
      label: 'Id',
      value: r.id,
      maxlength: 40,
      placeholder: 'e.g. express',
      hint: 'Quotes and orders name the option by it: lower-case letters, digits, - and _.',
      onInput: setId,
    })}`;
}

function termFields(c: EditorContext, r: DeliveryRow, path: string): TemplateResult {
  const touch = { touch: r.key };
  return html`${textField(c, `${path}.business_days`, {
    label: 'Business days until it ships',
    value: r.days,
    inputmode: 'numeric',
    placeholder: 'e.g. 5',
    hint: `0 to ${TERMS_LIMITS.maxDays}; Saturdays and Sundays do not count.`,
    onInput: (v) => c.edit(() => (r.days = v), touch),
  })}
    ${textField(c, `${path}.surcharge_percent`, {
      label: html`Surcharge <span class="unit">(% of the line)</span>`,
      value: r.percent,
      inputmode: 'decimal',
      placeholder: '0',
      hint: 'Empty: none.',
      onInput: (v) => c.edit(() => (r.percent = v), touch),
    })}
    ${textField(c, `${path}.surcharge_amount`, {
      label: html`Surcharge <span class="unit">(${c.currency} per line)</span>`,
      value: r.amount,
      inputmode: 'decimal',
      placeholder: '0',
      hint: 'Empty: none.',
      onInput: (v) => c.edit(() => (r.amount = v), touch),
    })}`;
}
