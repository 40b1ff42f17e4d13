// "Your printer" on the Overview: the printer library (GET /v2/profiles/library) as vendor → printer → the print
// and filament presets compatible with it. Each change of the pick is announced as `sq-printer-pick`, whose
// detail is the `library` object the import takes ({vendor, printer, prints, filaments}).
import { html, nothing } from 'lit';
import { AppElement } from '../lib/element.ts';
import { api, call } from '../lib/api.ts';
import { emit } from '../lib/events.ts';
import { Loader } from '../lib/loader.ts';
import type { LibraryPrinter, PrinterLibrary } from '../lib/types.ts';
import { byModel, pickFor, toggle, type PrinterPick } from '../lib/printer-pick.ts';
import { renderLoad } from './states.ts';

export class PrinterPicker extends AppElement {
  static override properties = { vendor: { state: true }, pick: { state: true } };
  declare vendor: string;
  declare pick: PrinterPick | null;

  private vendors = new Loader<PrinterLibrary>(this, () => call(api.GET('/v2/profiles/library')));
  private printers = new Loader<PrinterLibrary | null>(this, () =>
    this.vendor
      ? call(api.GET('/v2/profiles/library', { params: { query: { vendor: this.vendor } } }))
      : Promise.resolve(null),
  );

  constructor() {
    super();
    this.vendor = '';
    this.pick = null;
  }

  private chooseVendor(id: string) {
    this.vendor = id;
    this.setPick(null);
    void this.printers.reload();
  }

  private choosePrinter(printers: LibraryPrinter[], name: string) {
    const printer = printers.find((p) => p.name === name);
    this.setPick(printer ? pickFor(this.vendor, printer, this.pick) : null);
  }

  private setPick(pick: PrinterPick | null) {
    this.pick = pick;
    emit(this, 'sq-printer-pick', pick);
  }

  protected override render() {
    return html`<section class="panel" aria-labelledby="printer-h" data-testid="printer-picker">
      <div class="panel-head"><h2 id="printer-h">Your printer</h2></div>
      <p class="muted small">Pick the printer you own from PrusaSlicer's library: it lists the print settings and
        filaments PrusaSlicer offers for it.</p>
      ${renderLoad(this.vendors.state, 'the printer library', (library) => this.vendorSelect(library))}
      ${this.vendor ? renderLoad(this.printers.state, 'the printers', (library) => this.printerPart(library)) : nothing}
    </section>`;
  }

  private vendorSelect(library: PrinterLibrary) {
    return html`<div class="field">
      <label for="printer-vendor">Vendor</label>
      <select id="printer-vendor" @change=${(e: Event) => this.chooseVendor((e.target as HTMLSelectElement).value)}>
        <option value="" ?selected=${!this.vendor}>Choose a vendor…</option>
        ${library.vendors.map((v) => html`<option value=${v.id} ?selected=${v.id === this.vendor}>${v.name}</option>`)}
      </select>
    </div>`;
  }

  private printerPart(library: PrinterLibrary | null) {
    const printers = library?.vendors[0]?.printers ?? [];
    const chosen = printers.find((p) => p.name === this.pick?.printer);
    return html`<div class="field">
        <label for="printer-model">Printer and nozzle</label>
        <select id="printer-model" @change=${(e: Event) => this.choosePrinter(printers, (e.target as HTMLSelectElement).value)}>
          <option value="" ?selected=${!chosen}>Choose a printer…</option>
          ${byModel(printers).map(
            (group) => html`<optgroup label=${group.model}>
              ${group.printers.map(
                (p) =>
                  html`<option value=${p.name} ?selected=${p.name === chosen?.name}>${p.name} (${p.nozzle_diameter} mm nozzle)</option>`,
              )}
            </optgroup>`,
          )}
        </select>
      </div>
      ${chosen && this.pick ? this.presets(chosen, this.pick) : nothing}`;
  }

  private presets(printer: LibraryPrinter, pick: PrinterPick) {
    return html`<div class="two-col" data-testid="printer-presets">
      ${this.presetList('prints', 'Print settings', printer.prints ?? [], pick)}
      ${this.presetList('filaments', 'Filaments', printer.filaments ?? [], pick)}
    </div>`;
  }

  private presetList(kind: 'prints' | 'filaments', title: string, offered: string[], pick: PrinterPick) {
    return html`<fieldset class="panel">
      <legend>${title} <span class="muted small">(${pick[kind].length} of ${offered.length} chosen)</span></legend>
      <ul class="plain-list">
        ${offered.map(
          (name) => html`<li><label><input type="checkbox" .checked=${pick[kind].includes(name)}
            @change=${() => this.setPick(toggle(pick, kind, name, offered))} /> ${name}</label></li>`,
        )}
      </ul>
    </fieldset>`;
  }
}
customElements.define('sq-printer-picker', PrinterPicker);
