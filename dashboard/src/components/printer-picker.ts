// "Your printer" on the Overview: the printer library (GET /v2/profiles/library) as vendor → printer → the print
// and filament presets compatible with it, imported as the shop's default printer and its materials
// (POST /v2/profiles/import), or the shop's own PrusaSlicer / Orca config file imported the same way, either with
// its custom G-code kept when asked (keep_custom_gcode). Each change of the pick is announced as `sq-printer-pick`,
// whose detail is the `library` object the import takes.
import { html, nothing } from 'lit';
import { ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { emit } from '../lib/events.ts';
import { Loader } from '../lib/loader.ts';
import { byModel, type PrinterPick, pickFor, toggle } from '../lib/printer-pick.ts';
import type { LibraryPrinter, PrinterLibrary, ProfileImportResult } from '../lib/types.ts';
import { importResult } from './import-result.ts';
import { renderLoad } from './states.ts';
import './printer-check.ts';

export class PrinterPicker extends AppElement {
  static override properties = {
    vendor: { state: true },
    pick: { state: true },
    imported: { state: true },
    importError: { state: true },
    importing: { state: true },
    keepGcode: { state: true },
  };
  declare vendor: string;
  declare pick: PrinterPick | null;
  /** What the last import made, and what it left out. */
  declare imported: ProfileImportResult | null;
  declare importError: string;
  declare importing: boolean;
  /** Import with the config's custom G-code (keep_custom_gcode): start and end G-code add print time. */
  declare keepGcode: boolean;
  /** Whether the last import asked to keep it. */
  private keptAsked = false;

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
    this.imported = null;
    this.importError = '';
    this.importing = false;
    this.keepGcode = false;
  }

  /** The pick, or the shop's own config file, as the account's default printer and its materials. */
  private async runImport(send: () => Promise<ProfileImportResult>) {
    this.importing = true;
    this.importError = '';
    this.keptAsked = this.keepGcode;
    try {
      this.imported = await send();
    } catch (e) {
      this.imported = null;
      this.importError = e instanceof ApiError ? e.message : String(e);
    } finally {
      this.importing = false;
    }
  }

  private importPick(pick: PrinterPick) {
    return this.runImport(() =>
      call(
        api.POST('/v2/profiles/import', { body: { library: pick, default: true, keep_custom_gcode: this.keepGcode } }),
      ),
    );
  }

  private importFile(file: File) {
    const keep = this.keepGcode ? 'true' : 'false';
    return this.runImport(() =>
      call(
        api.POST('/v2/profiles/import', {
          body: { file: file.name, default: 'true', keep_custom_gcode: keep },
          bodySerializer() {
            const form = new FormData();
            form.append('file', file, file.name);
            form.append('default', 'true');
            form.append('keep_custom_gcode', keep);
            return form;
          },
        }),
      ),
    );
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
      ${this.importPart()}
      <sq-printer-check .imported=${this.imported}></sq-printer-check>
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

  private importPart() {
    const pick = this.pick;
    const ready = !!pick && pick.prints.length > 0;
    return html`${this.keepField()}
      <div class="field">
        <button type="button" class="primary" ?disabled=${!ready || this.importing}
          @click=${() => pick && this.importPick(pick)}>Use this printer for my quotes</button>
        <p class="muted small">${ready ? 'Quotes will be sliced with these presets.' : 'Choose a printer and at least one print setting.'}</p>
      </div>
      <div class="field">
        <label for="printer-config">Or import your own PrusaSlicer or Orca config (.ini, .3mf, .json)</label>
        <input id="printer-config" type="file" accept=".ini,.3mf,.json" ?disabled=${this.importing}
          @change=${(e: Event) => {
            const file = (e.target as HTMLInputElement).files?.[0];
            if (file) void this.importFile(file);
          }} />
      </div>
      ${this.importError ? html`<p class="error" role="alert">${this.importError}</p>` : nothing}
      ${this.imported ? importResult(this.imported, this.keptAsked) : nothing}`;
  }

  /** Whether the import keeps the printer's custom G-code; it applies to a library pick and to a file alike. */
  private keepField() {
    return html`<div class="field field-check">
      <input id="printer-keep-gcode" type="checkbox" .checked=${this.keepGcode} aria-describedby="printer-keep-gcode-hint"
        @change=${(e: Event) => (this.keepGcode = (e.target as HTMLInputElement).checked)} />
      <label for="printer-keep-gcode">Keep my custom G-code</label>
      <span class="hint" id="printer-keep-gcode-hint">Start, end and layer-change G-code (homing, bed levelling, purge
        line) add print time: kept, quotes count it as your printer does; left out, this service's minimal start and
        end are used.</span>
    </div>`;
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
