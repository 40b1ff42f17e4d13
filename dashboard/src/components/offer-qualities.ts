// The quality presets of the offer editor: label, id (following the label while new) and the preset
// settings (PRESET_FIELDS) with the catalogue's labels, units and ranges, as the profile forms show them.
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import {
  fieldId,
  idFromLabel,
  newQualityRow,
  type OfferDraft,
  PRESET_DEFS,
  type QualityRow,
} from '../lib/offer-draft.ts';
import { formatField, unitText } from '../lib/profile-rules.ts';
import {
  defaultSelect,
  describedBy,
  type EditorContext,
  errorText,
  moved,
  moveIn,
  rowTools,
  textField,
} from './offer-controls.ts';
import { badge } from './page-header.ts';
import { settingField } from './setting-field.ts';

export function qualitiesSection(c: EditorContext): TemplateResult {
  const d = c.draft;
  return html`<fieldset class="field-group offer-group" id=${fieldId('qualities')} tabindex="-1"
    aria-describedby="of-qualities-hint">
    <legend>Quality presets</legend>
    <p class="hint" id="of-qualities-hint">Named sets of slicing settings laid over a printer profile: your default
      one, or another of yours (a print preset you imported, say). A field left empty keeps the printer profile's
      value (shown greyed). Bed, nozzle and prices stay the printer profile's.</p>
    ${errorText(c, 'qualities')}
    <ol class="offer-list">${repeat(
      d.qualities,
      (q) => q.key,
      (q, i) => qualityItem(c, q, i),
    )}</ol>
    <div class="add-row">
      <button type="button" class="btn" @click=${() => addQuality(c)}>Add quality preset</button>
    </div>
    ${defaultSelect(c, {
      path: 'default_quality',
      label: 'Preselected quality',
      current: d.defaultQuality,
      rows: d.qualities.map((q) => ({ key: q.key, text: q.label || q.id || '(unnamed)' })),
      set: (key) => c.edit((x) => (x.defaultQuality = key)),
    })}
  </fieldset>`;
}

function addQuality(c: EditorContext) {
  const focus = fieldId(`qualities.${c.draft.qualities.length}.label`);
  c.edit((d) => d.qualities.push(newQualityRow()), { say: 'New quality preset added: give it a label.', focus });
}

function removeQuality(d: OfferDraft, key: number) {
  d.qualities = d.qualities.filter((x) => x.key !== key);
  if (d.defaultQuality === key) d.defaultQuality = d.qualities[0]?.key ?? 0;
}

/** The printer profile a quality slices with, when it names one of the account's. */
const printerOf = (c: EditorContext, q: QualityRow) =>
  q.printerProfile ? c.printers.find((p) => p.id === q.printerProfile) : undefined;

/** "Layer height 0.1 mm, Perimeters 4", or what an empty preset means. */
function presetSummary(c: EditorContext, q: QualityRow): string {
  const set = PRESET_DEFS.filter((def) => (q.settings[def.name] ?? '').trim() !== '');
  if (!set.length)
    return q.printerProfile ? `as ${printerOf(c, q)?.name ?? 'its printer profile'}` : 'as your printer profile';
  return set.map((def) => `${def.label} ${q.settings[def.name]}${unitText(def) ? ` ${unitText(def)}` : ''}`).join(', ');
}

function qualityItem(c: EditorContext, q: QualityRow, i: number): TemplateResult {
  const path = `qualities.${i}`;
  const count = c.draft.qualities.length;
  const name = q.label || q.id || `quality ${i + 1}`;
  const tools = rowTools(`quality ${name}`, {
    index: i,
    count,
    move: (by) => c.edit((d) => moveIn(d.qualities, i, by), { say: moved(name, i + by + 1, count) }),
    remove: () => c.edit((d) => removeQuality(d, q.key), { say: `${name} removed.`, focus: fieldId('qualities') }),
  });
  return html`<li class="offer-item">
    <div class="offer-item-head">
      <span class="offer-item-title">${name}</span>
      ${c.draft.defaultQuality === q.key ? badge('Preselected', 'info') : nothing}
      ${tools}
    </div>
    <div class="field-pair">${nameFields(c, q, path)}</div>
    ${printerField(c, q, `${path}.printer_profile`)}
    ${presetSettings(c, q, `${path}.printer_config`)}
  </li>`;
}

function nameFields(c: EditorContext, q: QualityRow, path: string): TemplateResult {
  const touch = { touch: q.key };
  const setLabel = (v: string) =>
    c.edit(() => {
      q.label = v;
      if (q.idFromLabel) q.id = idFromLabel(v);
    }, touch);
  const setId = (v: string) =>
    c.edit(() => {
      q.id = v;
      q.idFromLabel = false;
    }, touch);
  return html`${textField(c, `${path}.label`, {
    label: 'Label shoppers see',
    value: q.label,
    maxlength: 60,
    placeholder: 'e.g. Fine · 0.1 mm',
    onInput: setLabel,
  })}
    ${textField(c, `${path}.id`, {
      label: 'Id',
      value: q.id,
      maxlength: 40,
      placeholder: 'e.g. fine',
      onInput: setId,
      hint: 'Quotes and requests name the preset by it: lower-case letters, digits, - and _.',
    })}`;
}

/** Which printer profile the quality slices with: shown once the account has a printer profile of its own. */
function printerField(c: EditorContext, q: QualityRow, path: string): TemplateResult | typeof nothing {
  if (!c.printers.length && !q.printerProfile) return nothing;
  const id = fieldId(path);
  const invalid = c.problem(path) !== undefined;
  const known = c.printers.some((p) => p.id === q.printerProfile);
  return html`<div class="field ${invalid ? 'field-invalid' : ''}">
    <label for=${id}>Slices with</label>
    <select id=${id} aria-invalid=${invalid ? 'true' : 'false'} aria-describedby=${describedBy(c, path, false)}
      @change=${(e: Event) => c.edit(() => (q.printerProfile = (e.target as HTMLSelectElement).value), { touch: q.key })}>
      <option value="" ?selected=${!q.printerProfile}>Your default printer profile</option>
      ${c.printers.map((p) => html`<option value=${p.id} ?selected=${p.id === q.printerProfile}>${p.name}</option>`)}
      ${q.printerProfile && !known ? html`<option value=${q.printerProfile} selected>A profile that no longer exists</option>` : nothing}
    </select>
    ${errorText(c, path)}
  </div>`;
}

/** The preset's settings; a new preset's start open, and the editor opens any with a problem. */
function presetSettings(c: EditorContext, q: QualityRow, path: string): TemplateResult {
  return html`<details class="preset-settings" id=${fieldId(path)} tabindex="-1" ?open=${q.isNew}>
    <summary>Slicing settings: <span class="muted">${presetSummary(c, q)}</span></summary>
    ${errorText(c, path)}
    <div class="field-grid">
      ${PRESET_DEFS.map((def) =>
        settingField(
          {
            def,
            value: q.settings[def.name] ?? '',
            inherited: formatField(def, (printerOf(c, q)?.settings ?? c.printer)[def.name]),
            error: c.problem(`${path}.${def.name}`),
            readonly: false,
            onInput: (field, v) => c.edit(() => (q.settings[field] = v), { touch: q.key }),
          },
          fieldId(path),
        ),
      )}
    </div>
  </details>`;
}
