// "Check against your slicer", under "Your printer": the shop downloads the reference part, slices it in its own
// PrusaSlicer with the presets it imported, and uploads the G-code (.gcode or .bgcode); this service slices the
// same part with the printer profile (POST /v2/profiles/printer/{id}/check) and shows grams and time side by side
// with the difference in percent, whether that agrees, and what to look at when it does not. Shown once the
// account has a printer profile of its own; the last import's printer is the one offered first.
import { html, nothing, type PropertyValues } from 'lit';
import { type ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { num } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import { AGREEMENT, clockTime, type ProfileCheck, readCheck, signedPercent } from '../lib/printer-check.ts';
import { listProfiles } from '../lib/profiles.ts';
import type { Profile, ProfileImportResult } from '../lib/types.ts';
import { formError } from './states.ts';

const REFERENCE_PART_URL = '/v2/profiles/reference-part';

export class PrinterCheck extends AppElement {
  static override properties = {
    imported: { attribute: false },
    printerId: { state: true },
    material: { state: true },
    gcode: { state: true },
    checking: { state: true },
    error: { state: true },
    result: { state: true },
  };
  /** The picker's last import: its printer is offered first, and the lists reload after it. */
  declare imported: ProfileImportResult | null;
  declare printerId: string;
  declare material: string;
  declare gcode: File | null;
  declare checking: boolean;
  declare error: ApiError | null;
  declare result: ProfileCheck | null;

  private printers = new Loader<Profile[]>(this, async () =>
    (await listProfiles('printer')).filter((p) => p.scope === 'account'),
  );
  private materials = new Loader<Profile[]>(this, () => listProfiles('material'));

  constructor() {
    super();
    this.imported = null;
    this.printerId = '';
    this.material = '';
    this.gcode = null;
    this.checking = false;
    this.error = null;
    this.result = null;
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (!changed.has('imported') || !this.imported) return;
    this.printerId = this.imported.profiles.find((p) => p.kind === 'printer')?.id ?? this.printerId;
    this.material = this.imported.profiles.find((p) => p.kind === 'material')?.name ?? this.material;
    this.result = null;
    void this.printers.reload();
    void this.materials.reload();
  }

  /** The printer checked: the one chosen, else the default, else the first. */
  private chosenPrinter(printers: Profile[]): Profile | undefined {
    return printers.find((p) => p.profile_id === this.printerId) ?? printers.find((p) => p.is_default) ?? printers[0];
  }

  /** The material sent: the one chosen, else the account's default (an own default before a global one). */
  private chosenMaterial(materials: Profile[]): string {
    if (this.material) return this.material;
    const own = materials.find((m) => m.scope === 'account' && m.is_default);
    return (own ?? materials.find((m) => m.is_default))?.name ?? '';
  }

  private async run(printer: Profile, material: string, gcode: File) {
    this.checking = true;
    this.error = null;
    this.result = null;
    try {
      this.result = await call(
        api.POST('/v2/profiles/printer/{profile_id}/check', {
          params: { path: { profile_id: printer.profile_id } },
          body: { gcode: gcode.name, material },
          bodySerializer() {
            const form = new FormData();
            form.append('gcode', gcode, gcode.name);
            if (material) form.append('material', material);
            return form;
          },
        }),
      );
    } catch (e) {
      this.error = toApiError(e);
    } finally {
      this.checking = false;
    }
  }

  protected override render() {
    const printers = this.printers.data ?? [];
    const printer = this.chosenPrinter(printers);
    if (!printer) return nothing;
    const materials = this.materials.data ?? [];
    const material = this.chosenMaterial(materials);
    const gcode = this.gcode;
    return html`<section class="panel" aria-labelledby="printer-check-h" data-testid="printer-check">
      <h3 id="printer-check-h">Check against your slicer</h3>
      <p class="hint">See that quotes use the grams and hours your own PrusaSlicer shows for the same part.</p>
      <ol class="small">
        <li><a href=${REFERENCE_PART_URL} download>Download the reference part</a> (a 20 mm cube, STL).</li>
        <li>Slice it in your PrusaSlicer with the printer, print and filament presets of the profile below, as
          PrusaSlicer places it (not moved, rotated or scaled), and export the G-code (.gcode or .bgcode).</li>
        <li>Upload that G-code and compare.</li>
      </ol>
      <div class="field">
        <label for="check-printer">Printer profile</label>
        <select id="check-printer" @change=${(e: Event) => (this.printerId = (e.target as HTMLSelectElement).value)}>
          ${printers.map(
            (p) =>
              html`<option value=${p.profile_id} ?selected=${p.profile_id === printer.profile_id}>${p.name}</option>`,
          )}
        </select>
      </div>
      <div class="field-grid">
        <div class="field">
          <label for="check-material">Material (the filament preset you sliced with)</label>
          <select id="check-material" @change=${(e: Event) => (this.material = (e.target as HTMLSelectElement).value)}>
            ${materials.map((m) => html`<option value=${m.name} ?selected=${m.name === material}>${m.name}</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="check-gcode">Your G-code of the reference part (.gcode or .bgcode)</label>
          <input id="check-gcode" type="file" accept=".gcode,.bgcode,.gco,.g" ?disabled=${this.checking}
            @change=${(e: Event) => {
              this.gcode = (e.target as HTMLInputElement).files?.[0] ?? null;
              this.result = null;
              this.error = null;
            }} />
        </div>
      </div>
      <button type="button" class="btn btn-primary" ?disabled=${!gcode || this.checking}
        @click=${() => gcode && this.run(printer, material, gcode)}>Compare with my G-code</button>
      <div role="status" aria-live="polite" data-testid="printer-check-status">${this.statusLine()}</div>
      ${formError(this.error)}
      ${this.result ? this.resultTable(this.result) : nothing}
    </section>`;
  }

  private statusLine() {
    if (this.checking)
      return html`<p class="state-inline"><span class="spinner" aria-hidden="true"></span> Slicing the reference part with PrusaSlicer…</p>`;
    const reading = this.result && readCheck(this.result);
    if (!reading) return nothing;
    if (reading.agrees)
      return html`<p><span class="badge badge-ok">Agrees</span> Within ±${AGREEMENT.weightPercent} % filament and
        ±${AGREEMENT.timePercent} % print time of your PrusaSlicer: quotes are priced from the grams and hours you see
        at home.</p>`;
    return html`<p><span class="badge badge-warn">Differs</span> More than ±${AGREEMENT.weightPercent} % filament or
        ±${AGREEMENT.timePercent} % print time apart. What to look at:</p>
      <ul class="small">${reading.hints.map((h) => html`<li>${h}</li>`)}</ul>`;
  }

  private resultTable(c: ProfileCheck) {
    const shop = c.shop_gcode;
    const diff = c.difference;
    const grams = (g: number | null | undefined) => (g === null || g === undefined ? '—' : `${num(g, 2)} g`);
    return html`<div class="table-wrap" data-testid="printer-check-result">
      <table class="table table-compact">
        <caption>The reference part with “${c.material}”: this service (PrusaSlicer ${c.slicer.version}) beside your
          G-code${shop?.slicer_version ? ` (PrusaSlicer ${shop.slicer_version})` : ''}</caption>
        <thead><tr><th scope="col">Measure</th><th scope="col" class="num">This service</th>
          <th scope="col" class="num">Your G-code</th><th scope="col" class="num">Difference</th></tr></thead>
        <tbody>
          <tr><th scope="row">Filament</th><td class="num">${grams(c.slice.filament_weight_g)}</td>
            <td class="num">${grams(shop?.filament_weight_g)}</td>
            <td class="num" data-testid="check-weight-diff">${signedPercent(diff?.weight_percent ?? null)}</td></tr>
          <tr><th scope="row">Print time</th><td class="num">${clockTime(c.slice.print_time_s)}</td>
            <td class="num">${shop ? clockTime(shop.print_time_s) : '—'}</td>
            <td class="num" data-testid="check-time-diff">${diff ? signedPercent(diff.time_percent) : '—'}</td></tr>
          <tr><th scope="row">Filament length</th><td class="num">${num(c.slice.filament_length_mm, 0)} mm</td>
            <td class="num">${shop ? `${num(shop.filament_length_mm, 0)} mm` : '—'}</td><td class="num"></td></tr>
        </tbody>
      </table>
      <p class="hint">Difference: (this service − yours) ÷ yours. Above 0, quotes count more filament or time than your
        slicer, so they price a little higher.${
          shop && shop.filament_weight_g === null
            ? ' Your G-code states no weight (its filament preset has no density): compare the length.'
            : ''
        }</p>
    </div>`;
  }
}
customElements.define('sq-printer-check', PrinterCheck);
