// One profile setting as a labelled control: number (with unit and range), boolean and enum as selects
// that can also be "not set" (the value is then inherited), text. Hint and error are tied to the input.
import { html, nothing, type TemplateResult } from 'lit';
import { type FieldDef, rangeText, unitText } from '../lib/profile-rules.ts';

export interface FieldView {
  def: FieldDef;
  /** The form text. */
  value: string;
  /** What applies when left empty, shown as the placeholder. */
  inherited: string;
  error: string | undefined;
  readonly: boolean;
  onInput: (name: string, value: string) => void;
}

const input = (e: Event) => (e.target as HTMLInputElement | HTMLSelectElement).value;

function control(v: FieldView, id: string, describedBy: string): TemplateResult {
  const { def } = v;
  const invalid = v.error ? 'true' : 'false';
  if (def.type === 'boolean' || def.type === 'enum') {
    const options =
      def.type === 'boolean'
        ? [
            ['true', 'Yes'],
            ['false', 'No'],
          ]
        : (def.values ?? []).map((x) => [x, x]);
    return html`<select id=${id} name=${def.name} aria-describedby=${describedBy} aria-invalid=${invalid} ?disabled=${v.readonly}
      @change=${(e: Event) => v.onInput(def.name, input(e))}>
      <option value="" ?selected=${v.value === ''}>Not set${v.inherited ? ` (inherits ${v.inherited})` : ''}</option>
      ${options.map(([value, label]) => html`<option value=${value} ?selected=${v.value === value}>${label}</option>`)}
    </select>`;
  }
  const numeric = def.type === 'number' || def.type === 'integer';
  return html`<input id=${id} name=${def.name} type="text" inputmode=${numeric ? (def.type === 'integer' ? 'numeric' : 'decimal') : 'text'}
    .value=${v.value} placeholder=${v.inherited} autocomplete="off" ?readonly=${v.readonly}
    aria-describedby=${describedBy} aria-invalid=${invalid} @input=${(e: Event) => v.onInput(def.name, input(e))} />`;
}

export function settingField(v: FieldView, idPrefix: string): TemplateResult {
  const id = `${idPrefix}-${v.def.name}`;
  const unit = unitText(v.def);
  const range = rangeText(v.def);
  const describedBy = v.error ? `${id}-hint ${id}-error` : `${id}-hint`;
  return html`<div class="field ${v.error ? 'field-invalid' : ''}">
    <label for=${id}>${v.def.label}${unit ? html` <span class="unit">(${unit})</span>` : nothing}</label>
    ${control(v, id, describedBy)}
    <p class="hint" id="${id}-hint">${v.def.description}${range ? html` <span class="range">Allowed: ${range}.</span>` : nothing}</p>
    ${v.error ? html`<p class="field-error" id="${id}-error">${v.def.label} ${v.error}</p>` : nothing}
  </div>`;
}
