// The materials of the offer editor: material profiles picked from the account's, each with its colours
// (added, edited, reordered, removed in place), and the preselected material. Ids are field paths
// (materials.0.colors.1), so the API's problems land on the control they name.
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { colorRow, fieldId, type MaterialRow, materialRow, type OfferDraft } from '../lib/offer-draft.ts';
import type { MaterialChoice } from '../lib/profiles.ts';
import {
  addOnEnter,
  defaultSelect,
  type EditorContext,
  errorText,
  moved,
  moveIn,
  rowTools,
  takeAddText,
  textField,
} from './offer-controls.ts';
import { badge } from './page-header.ts';

export function materialsSection(c: EditorContext): TemplateResult {
  const d = c.draft;
  const offered = new Set(d.materials.map((m) => m.material.toLowerCase()));
  // Priced profiles first, so the select starts on one that can be added.
  const available = c.materials
    .filter((m) => !offered.has(m.name.toLowerCase()))
    .sort((a, b) => Number(b.priced) - Number(a.priced));
  return html`<fieldset class="field-group offer-group" id=${fieldId('materials')} tabindex="-1"
    aria-describedby="of-materials-hint">
    <legend>Materials and colours</legend>
    <p class="hint" id="of-materials-hint">Shoppers pick a material, then one of its colours, in this order. Each
      material is one of your material profiles, whose prices and settings apply.</p>
    ${errorText(c, 'materials')}
    <ol class="offer-list">${repeat(
      d.materials,
      (m) => m.key,
      (m, i) => materialItem(c, m, i),
    )}</ol>
    <div class="add-row">
      <div class="field">
        <label for="of-add-material">Add a material profile</label>
        <select id="of-add-material" ?disabled=${!available.length}>
          ${available.length ? nothing : html`<option value="">Every material profile is offered</option>`}
          ${optionGroup(
            'Your material profiles',
            available.filter((m) => m.own),
          )}
          ${optionGroup(
            'Global material profiles',
            available.filter((m) => !m.own),
          )}
        </select>
      </div>
      <button type="button" class="btn" ?disabled=${!available.some((m) => m.priced)}
        @click=${(e: Event) => addMaterial(c, e)}>Add material</button>
    </div>
    <p class="hint">Missing one? Create it under <a href="#/profiles/material">Slice profiles → Material</a>. A
      material needs a price per kg or per gram before shoppers can choose it.</p>
    ${defaultSelect(c, {
      path: 'default_material',
      label: 'Preselected material',
      current: d.defaultMaterial,
      rows: d.materials.map((m) => ({ key: m.key, text: m.material })),
      set: (key) => c.edit((x) => (x.defaultMaterial = key)),
    })}
  </fieldset>`;
}

function optionGroup(label: string, list: MaterialChoice[]) {
  if (!list.length) return nothing;
  return html`<optgroup label=${label}>${list.map(
    (m) => html`<option value=${m.name} ?disabled=${!m.priced}>
    ${m.name}${m.priced ? '' : ' (no price set)'}</option>`,
  )}</optgroup>`;
}

function addMaterial(c: EditorContext, e: Event) {
  const { text } = takeAddText(e);
  const choice = c.materials.find((m) => m.name === text && m.priced);
  if (!choice) return;
  const row = materialRow(choice.name, choice.colors);
  const colors = choice.colors.length ? ` with its colours ${choice.colors.join(', ')}` : '';
  c.edit((d) => d.materials.push(row), { say: `${choice.name} added${colors}.`, focus: `of-add-color-${row.key}` });
}

function removeMaterial(d: OfferDraft, key: number) {
  d.materials = d.materials.filter((m) => m.key !== key);
  if (d.defaultMaterial === key) d.defaultMaterial = d.materials[0]?.key ?? 0;
}

function materialItem(c: EditorContext, m: MaterialRow, i: number): TemplateResult {
  const path = `materials.${i}`;
  const count = c.draft.materials.length;
  const known = c.materials.some((p) => p.name.toLowerCase() === m.material.toLowerCase());
  const tools = rowTools(`material ${m.material}`, {
    index: i,
    count,
    move: (by) => c.edit((d) => moveIn(d.materials, i, by), { say: moved(m.material, i + by + 1, count) }),
    remove: () =>
      c.edit((d) => removeMaterial(d, m.key), {
        say: `${m.material} removed from the offer.`,
        focus: 'of-add-material',
      }),
  });
  return html`<li class="offer-item">
    <div class="offer-item-head">
      <span class="offer-item-title" id=${fieldId(`${path}.material`)} tabindex="-1">${m.material}</span>
      ${c.draft.defaultMaterial === m.key ? badge('Preselected', 'info') : nothing}
      ${tools}
    </div>
    ${
      known
        ? nothing
        : html`<p class="alert alert-warn small">None of your material profiles is named
      “${m.material}”: saving is refused until you remove it or create that profile.</p>`
    }
    ${errorText(c, `${path}.material`)}
    ${textField(c, `${path}.description`, {
      label: `Description of ${m.material}`,
      value: m.description,
      maxlength: 200,
      placeholder: 'e.g. Tough and heat resistant (80 °C)',
      hint: 'Shown to shoppers under the material. Empty: none.',
      onInput: (v) => c.edit(() => (m.description = v)),
    })}
    ${colorsGroup(c, m, i)}
  </li>`;
}

function colorsGroup(c: EditorContext, m: MaterialRow, i: number): TemplateResult {
  const path = `materials.${i}.colors`;
  const addId = `of-add-color-${m.key}`;
  return html`<fieldset class="colors" id=${fieldId(path)} tabindex="-1">
    <legend>Colours of ${m.material}</legend>
    ${errorText(c, path)}
    ${m.colors.length ? nothing : html`<p class="hint">No colour choice: shoppers get the material as it comes.</p>`}
    <ol class="color-list">
      ${repeat(
        m.colors,
        (col) => col.key,
        (_col, j) => colorChip(c, m, `${path}.${j}`, j),
      )}
      <li class="add-row add-chip">
        <label for=${addId} class="visually-hidden">New colour for ${m.material}</label>
        <input id=${addId} type="text" maxlength="40" autocomplete="off" placeholder="New colour"
          @keydown=${addOnEnter} />
        <button type="button" class="btn btn-small" @click=${(e: Event) => addColor(c, m, e)}>Add colour</button>
      </li>
    </ol>
  </fieldset>`;
}

function colorChip(c: EditorContext, m: MaterialRow, path: string, j: number): TemplateResult {
  const col = m.colors[j]!; // j comes from iterating m.colors
  const count = m.colors.length;
  const field = textField(c, path, {
    label: `Colour ${j + 1} of ${m.material}`,
    hiddenLabel: true,
    value: col.name,
    maxlength: 40,
    onInput: (v) => c.edit(() => (col.name = v)),
  });
  const tools = rowTools(
    `colour ${col.name || j + 1} of ${m.material}`,
    {
      index: j,
      count,
      move: (by) => c.edit(() => moveIn(m.colors, j, by), { say: moved(col.name, j + by + 1, count) }),
      remove: () =>
        c.edit(() => m.colors.splice(j, 1), {
          say: `${col.name} removed from ${m.material}.`,
          focus: `of-add-color-${m.key}`,
        }),
    },
    'row',
  );
  const swatchPath = `materials.${path.split('.')[1]}.swatches.${col.name.trim()}`;
  const swatch = textField(c, swatchPath, {
    label: `Swatch of ${col.name || `colour ${j + 1}`} (#rrggbb)`,
    hiddenLabel: true,
    value: col.swatch,
    maxlength: 7,
    placeholder: '#rrggbb',
    onInput: (v) => c.edit(() => (col.swatch = v)),
  });
  const invalid = c.problem(path) || c.problem(swatchPath);
  return html`<li class="color-chip ${invalid ? 'chip-invalid' : ''}">${field}${swatch}${tools}</li>`;
}

function addColor(c: EditorContext, m: MaterialRow, e: Event) {
  const { text, input } = takeAddText(e);
  if (!text) return c.edit(() => undefined, { say: 'Type a colour name first.', focus: input.id });
  const say = `${text} added to the colours of ${m.material}.`;
  c.edit(() => m.colors.push(colorRow(text)), { say, focus: input.id });
}
