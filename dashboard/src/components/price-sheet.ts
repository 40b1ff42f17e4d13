// The Prices page's form: every material's price per kg and the shop-wide money fields, checked as typed with the
// catalogue's rules, each material's sample part priced on every keystroke; saving writes only what changed, to
// the profiles quotes take it from (lib/price-save.ts).
import { html, nothing, type PropertyValues } from 'lit';
import type { ApiError } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { emit } from '../lib/events.ts';
import { duration } from '../lib/format.ts';
import { toApiError } from '../lib/loader.ts';
import { savePlan, saveWrites } from '../lib/price-save.ts';
import type { ShopFieldName } from '../lib/price-sheet.ts';
import {
  formFrom,
  formIssues,
  type PriceData,
  type PriceForm,
  priceKey,
  samplePrice,
  shippedAmounts,
} from '../lib/price-sheet.ts';
import { UNSAVED_ATTRIBUTE } from '../lib/router.ts';
import { SAMPLE_PART } from '../lib/sample-part.ts';
import { badge } from './page-header.ts';
import { materialRows, type PriceView, priceInputId } from './price-materials.ts';
import { shopFields, shopInputId } from './price-shop.ts';
import { formError } from './states.ts';

const SUMMARY_ID = 'pr-summary';

export class PriceSheet extends AppElement {
  static override properties = {
    data: { attribute: false },
    form: { state: true },
    touched: { state: true },
    submitted: { state: true },
    busy: { state: true },
    serverError: { state: true },
  };
  declare data: PriceData;
  declare form: PriceForm;
  /** Fields typed in: their problems show at once; the others' after a save attempt. */
  declare touched: Set<string>;
  declare submitted: boolean;
  declare busy: boolean;
  declare serverError: ApiError | null;
  private focusAfter: string | null = null;

  constructor() {
    super();
    this.touched = new Set();
    this.submitted = false;
    this.busy = false;
    this.serverError = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('data') && this.data) {
      this.form = formFrom(this.data);
      this.touched = new Set();
      this.submitted = false;
    }
  }

  protected override updated(): void {
    this.toggleAttribute(UNSAVED_ATTRIBUTE, this.dirty);
    if (!this.focusAfter) return;
    document.getElementById(this.focusAfter)?.focus();
    this.focusAfter = null;
  }

  private get dirty(): boolean {
    return this.data !== undefined && savePlan(this.data, this.form).length > 0;
  }

  private idOf(key: string): string {
    return key.startsWith('price:') ? priceInputId(this.data, key.slice(6)) : shopInputId(key as ShopFieldName);
  }

  private view(problems: Map<string, string>): PriceView {
    const shown = (key: string) => (this.submitted || this.touched.has(key) ? problems.get(key) : undefined);
    const typed = (key: string) => {
      this.touched = new Set(this.touched).add(key);
      this.serverError = null;
    };
    const initial = formFrom(this.data);
    const examples = shippedAmounts(this.data);
    return {
      data: this.data,
      form: this.form,
      initial,
      example: (key) => examples.get(key),
      problem: shown,
      setPrice: (m, text) => {
        typed(priceKey(m));
        this.form = { ...this.form, prices: { ...this.form.prices, [m]: text } };
      },
      setShop: (name, text) => {
        typed(name);
        this.form = { ...this.form, shop: { ...this.form.shop, [name]: text } };
      },
      sample: (m) => samplePrice(this.data, this.form, m),
    };
  }

  private async submit(e: SubmitEvent) {
    e.preventDefault();
    this.submitted = true;
    if (formIssues(this.data, this.form).size) {
      this.focusAfter = SUMMARY_ID;
      return;
    }
    this.busy = true;
    try {
      await saveWrites(savePlan(this.data, this.form));
      emit(this, 'sq-prices-saved', 'Prices saved. Quotes use them from now on.');
    } catch (err) {
      this.serverError = toApiError(err);
      this.focusAfter = SUMMARY_ID;
    } finally {
      this.busy = false;
    }
  }

  private discard = () => {
    this.form = formFrom(this.data);
    this.touched = new Set();
    this.submitted = false;
    this.serverError = null;
  };

  protected override render() {
    if (!this.data || !this.form) return nothing;
    const problems = formIssues(this.data, this.form);
    const v = this.view(problems);
    return html`<form class="price-sheet" @submit=${this.submit} novalidate aria-label="Prices">
      ${this.summary(problems)}
      <section class="panel" aria-labelledby="pr-materials-h">
        <h2 id="pr-materials-h">Materials</h2>
        <p class="hint" id="pr-sample-hint">Beside each price: what a shopper pays for one ${SAMPLE_PART.name}, tax
          included, as you type. From a real slice with the shipped settings (0.2 mm layers, 20 % infill):
          ${duration(SAMPLE_PART.printTimeS)} of printing and ${SAMPLE_PART.filamentCm3.toFixed(2)} cm³ of filament,
          whose weight is the material's density. Your own printer settings may print it faster or slower.</p>
        ${materialRows(v)}
      </section>
      <section class="panel" aria-labelledby="pr-shop-h">
        <h2 id="pr-shop-h">Every part</h2>
        ${shopFields(v)}
      </section>
      ${this.actions()}
    </form>`;
  }

  private summary(problems: Map<string, string>) {
    if (this.submitted && problems.size) {
      const n = problems.size;
      const jump = (e: Event, key: string) => {
        e.preventDefault();
        document.getElementById(this.idOf(key))?.focus();
      };
      return html`<div class="alert alert-error error-summary" id=${SUMMARY_ID} tabindex="-1" role="alert">
        <p><strong>${n === 1 ? 'One field needs' : `${n} fields need`} attention before saving:</strong></p>
        <ul>${[...problems].map(([key, message]) => html`<li><a href="#${this.idOf(key)}" @click=${(e: Event) => jump(e, key)}>${message}</a></li>`)}</ul>
      </div>`;
    }
    return this.serverError ? html`<div id=${SUMMARY_ID} tabindex="-1">${formError(this.serverError)}</div>` : nothing;
  }

  private actions() {
    const dirty = this.dirty;
    return html`<div class="form-actions sticky-actions">
      <button type="submit" class="btn btn-primary" ?disabled=${this.busy || !dirty}>${this.busy ? 'Saving…' : 'Save prices'}</button>
      <button type="button" class="btn" ?disabled=${!dirty || this.busy} @click=${this.discard}>Discard changes</button>
      ${dirty ? badge('Unsaved changes', 'warn') : nothing}
    </div>`;
  }
}
customElements.define('sq-price-sheet', PriceSheet);
