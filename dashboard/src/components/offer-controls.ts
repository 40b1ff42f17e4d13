// Building blocks of the offer editor's sections: what a section gets from the editor, a labelled text field
// tied to its field path (id, hint, error and aria-invalid as the API names the field), the move/remove
// buttons of a list row, "add" fields, and the select of a preselected value.
import { html, nothing, type TemplateResult } from 'lit';
import { fieldId, type OfferDraft } from '../lib/offer-draft.ts';
import type { MaterialChoice, PrinterChoice } from '../lib/profiles.ts';

/** The problems the editor shows, by field path as the API names them (materials.0.colors.1, quantity.max …). */
export interface FieldErrors {
  /** The problem of this exact field, in the API's words ("must be …"), if one is to be shown. */
  problem(path: string): string | undefined;
  /** The field in words, to start the sentence ("PLA, colour 2"). */
  label(path: string): string;
}

export interface TextFieldOptions {
  label: string | TemplateResult;
  value: string;
  onInput: (value: string) => void;
  hint?: string | TemplateResult;
  inputmode?: 'numeric' | 'decimal' | 'text';
  maxlength?: number;
  placeholder?: string;
  /** The label is read by screen readers only (the row already shows what it is). */
  hiddenLabel?: boolean;
}

/** The error paragraph of a field or group, with the id its control points at. */
export function errorText(errors: FieldErrors, path: string): TemplateResult | typeof nothing {
  const message = errors.problem(path);
  if (!message) return nothing;
  return html`<p class="field-error" id="${fieldId(path)}-error">${errors.label(path)} ${message}</p>`;
}

export function describedBy(errors: FieldErrors, path: string, hasHint: boolean): string | typeof nothing {
  const id = fieldId(path);
  const ids = [hasHint ? `${id}-hint` : '', errors.problem(path) ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : nothing;
}

export function textField(errors: FieldErrors, path: string, o: TextFieldOptions): TemplateResult {
  const id = fieldId(path);
  const invalid = errors.problem(path) !== undefined;
  const onInput = (e: Event) => o.onInput((e.target as HTMLInputElement).value);
  return html`<div class="field ${invalid ? 'field-invalid' : ''}">
    <label for=${id} class=${o.hiddenLabel ? 'visually-hidden' : ''}>${o.label}</label>
    <input id=${id} type="text" .value=${o.value} inputmode=${o.inputmode ?? 'text'} maxlength=${o.maxlength ?? nothing}
      placeholder=${o.placeholder ?? nothing} autocomplete="off" aria-invalid=${invalid ? 'true' : 'false'}
      aria-describedby=${describedBy(errors, path, Boolean(o.hint))} @input=${onInput} />
    ${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : nothing}
    ${errorText(errors, path)}
  </div>`;
}

export interface RowMoves {
  index: number;
  count: number;
  move(by: -1 | 1): void;
  remove(): void;
}

/**
 * Move up / move down / remove for one row of a list (↑ ↓), or earlier / later / remove for one item of a
 * list that reads left to right (← →). Buttons that cannot act are aria-disabled rather than disabled, so
 * focus stays on them after a row reaches either end.
 */
export function rowTools(what: string, r: RowMoves, flow: 'column' | 'row' = 'column'): TemplateResult {
  const [back, on] =
    flow === 'column'
      ? [
          ['up', '↑'],
          ['down', '↓'],
        ]
      : [
          ['earlier', '←'],
          ['later', '→'],
        ];
  const moveButton = ([word, arrow]: string[], blocked: boolean, by: -1 | 1) => html`<button type="button"
    class="btn btn-small btn-icon" aria-label="Move ${what} ${word}" title="Move ${word}"
    aria-disabled=${blocked ? 'true' : 'false'} @click=${() => (blocked ? undefined : r.move(by))}>
    <span aria-hidden="true">${arrow}</span></button>`;
  const remove =
    flow === 'column'
      ? html`<button type="button" class="btn btn-small btn-danger-quiet" aria-label="Remove ${what}"
        @click=${r.remove}>Remove</button>`
      : html`<button type="button" class="btn btn-small btn-icon btn-danger-quiet" aria-label="Remove ${what}"
        title="Remove" @click=${r.remove}><span aria-hidden="true">✕</span></button>`;
  return html`<span class="row-tools">
    ${moveButton(back, r.index === 0, -1)}${moveButton(on, r.index === r.count - 1, 1)}${remove}
  </span>`;
}

/** What the live region says after a move. */
export const moved = (name: string, to: number, count: number) => `${name} moved to position ${to} of ${count}.`;

/** Moves a list entry by one place; the list is changed in place. */
export function moveIn<T>(list: T[], index: number, by: -1 | 1): void {
  const to = index + by;
  if (to < 0 || to >= list.length) return;
  [list[index], list[to]] = [list[to]!, list[index]!]; // both within bounds: checked above
}

export interface EditOptions {
  /** Said to screen readers (polite live region). */
  say?: string;
  /** Element id to focus after the change renders. */
  focus?: string;
  /** Key of the row this change touches: its problems show from now on. */
  touch?: number;
}

/** What each section of the editor reads and how it changes the draft. */
export interface EditorContext extends FieldErrors {
  draft: OfferDraft;
  currency: string;
  materials: MaterialChoice[];
  /** The printer values a preset field inherits when left empty (the placeholders). */
  printer: Record<string, unknown>;
  /** The account's own printer profiles a quality may slice with instead of the default one. */
  printers: PrinterChoice[];
  edit(change: (d: OfferDraft) => void, opts?: EditOptions): void;
}

/** The text typed (or option chosen) in the "add" field beside the clicked button; a typed one is emptied. */
export function takeAddText(e: Event): { text: string; input: HTMLInputElement | HTMLSelectElement } {
  const row = (e.target as HTMLElement).closest('.add-row')!;
  const input = row.querySelector<HTMLInputElement | HTMLSelectElement>('input, select')!;
  const text = input.value.trim();
  if (input instanceof HTMLInputElement) input.value = '';
  return { text, input };
}

/** Enter in an "add" field adds, instead of submitting the whole form. */
export function addOnEnter(e: KeyboardEvent): void {
  if (e.key !== 'Enter') return;
  e.preventDefault();
  (e.target as HTMLElement).closest('.add-row')!.querySelector<HTMLButtonElement>('button')!.click();
}

export interface DefaultChoice {
  path: string;
  label: string;
  rows: { key: number; text: string }[];
  current: number;
  set(key: number): void;
}

/** The select of a preselected value (default_material …), by row key so it follows renames. */
export function defaultSelect(c: EditorContext, o: DefaultChoice): TemplateResult {
  const id = fieldId(o.path);
  const invalid = c.problem(o.path) !== undefined;
  return html`<div class="field field-default ${invalid ? 'field-invalid' : ''}">
    <label for=${id}>${o.label}</label>
    <select id=${id} aria-invalid=${invalid ? 'true' : 'false'} aria-describedby=${describedBy(c, o.path, false)}
      @change=${(e: Event) => o.set(Number((e.target as HTMLSelectElement).value))}>
      ${o.rows.map((r) => html`<option value=${r.key} ?selected=${r.key === o.current}>${r.text}</option>`)}
    </select>
    ${errorText(c, o.path)}
  </div>`;
}
