// Fitting the printer (docs/placement.md): a part the server turned or laid down to fit is said so ("Turned to
// fit the printer"), and a part too big for the printer gets a scale control instead of only "please scale it
// down": a percent, prefilled with the largest size that fits, priced through the rescale path
// (POST /v2/file/scale/{file_id}).
import { html, nothing, type TemplateResult } from 'lit';
import type { ModelSummary, StageError } from './state.ts';
import type { BuildVolume, Placement } from './types.ts';

/** Refusals for size that a smaller scale mends: the widget's own check, and the server's placement. */
const TOO_BIG = new Set(['does_not_fit', 'exceeds_build_volume']);

/** What the shopper is told about how the part will lie on the plate, when it is not as uploaded. */
export function placementNote(placement: Placement | null | undefined): string | null {
  if (placement?.orientation === 'turned') return 'Turned to fit the printer';
  if (placement?.orientation === 'laid_down') return 'Turned to fit the printer (laid on its side)';
  return null;
}

/** What the shopper reads of a `thin_walls` warning on the quote. */
export const THIN_WALLS = 'Some walls are thinner than the printer’s nozzle: they may print weak or not at all.';

export function renderPlacementNote(
  placement: Placement | null | undefined,
  warnings: readonly { code: string }[] = [],
): TemplateResult | typeof nothing {
  const note = placementNote(placement);
  const thin = warnings.some((w) => w.code === 'thin_walls');
  return html`${note ? html`<p class="hint placement-note" part="placement-note">${note}</p>` : nothing}${
    thin ? html`<p class="hint thin-walls" part="thin-walls-warning">${THIN_WALLS}</p>` : nothing
  }`;
}

/**
 * The largest whole percent at which the part fits the build volume without relying on a turn: its sides and
 * the printer's, each sorted, compared side by side. Never above 100.
 */
export function fitPercent(size: readonly number[], volume: BuildVolume): number {
  const part = [...size].sort((a, b) => a - b);
  const printer = [volume.x, volume.y, volume.z].sort((a, b) => a - b);
  const factor = Math.min(...part.map((side, i) => (side > 0 ? printer[i]! / side : Infinity)));
  return Math.max(1, Math.min(100, Math.floor(factor * 100)));
}

/**
 * "Scale the model to [52] %" and "Scale and price" under a refusal for size. For a row of the multi-part list, `row`
 * makes its ids unique and its label and button name the part for screen readers.
 */
export function renderScaleControl(
  error: StageError | null,
  model: ModelSummary | null,
  volume: BuildVolume | undefined,
  busy: boolean,
  scaleTo: (percent: number) => void,
  row?: { idPrefix: string; name: string },
): TemplateResult | typeof nothing {
  if (!error || !TOO_BIG.has(error.code) || !model || !volume) return nothing;
  const suggested = fitPercent(model.size, volume);
  const id = (name: string) => (row ? `${row.idPrefix}-${name}` : name);
  const about = row ? html`<span class="visually-hidden"> (${row.name})</span>` : nothing;
  const submit = (e: Event) => {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).elements.namedItem('scale-percent') as HTMLInputElement;
    const value = Number(input.value);
    if (Number.isFinite(value) && value >= 1 && value <= 100) return scaleTo(value);
    input.setCustomValidity('Enter a percent from 1 to 100.');
    input.reportValidity();
  };
  return html`<form class="scale-control" part="scale-control" @submit=${submit}>
    <label for=${id('scale-percent')} part="label">Scale the model to${about}</label>
    <span class="scale-input"><input id=${id('scale-percent')} name="scale-percent" type="number" min="1" max="100" step="1"
      inputmode="numeric" .value=${String(suggested)} aria-describedby=${id('scale-help')} part="input"
      @input=${(e: Event) => (e.target as HTMLInputElement).setCustomValidity('')} /> %</span>
    <button type="submit" part="button scale-button" aria-disabled=${busy ? 'true' : 'false'}>${busy ? 'Scaling…' : 'Scale and price'}${row && !busy ? html`<span class="visually-hidden"> ${row.name}</span>` : nothing}</button>
    <p id=${id('scale-help')} class="hint">At ${suggested} % it fits the printer.</p>
  </form>`;
}
