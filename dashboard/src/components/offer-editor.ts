// The offer editor (account offer, or a widget key's own): validates as you type with the API's own rules
// (validateOffer, shared/offer.ts), puts the server's problems (400 validation_failed, 422 offer_conflict) on
// the fields they name, and shows the widget as shoppers will see it, unsaved changes included.
import { html, nothing, type PropertyValues } from 'lit';
import type { WidgetConfig } from '../../../widget/src/types.ts';
import type { ApiError } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { emit } from '../lib/events.ts';
import { toApiError } from '../lib/loader.ts';
import { type Offer, type OfferInput, type OfferTarget, type OfferView, removeOffer, saveOffer } from '../lib/offer.ts';
import { draftFrom, draftIssues, draftOffer, fieldLabel, type OfferDraft, offerBody } from '../lib/offer-draft.ts';
import type { MaterialChoice, PrinterChoice } from '../lib/profiles.ts';
import { UNSAVED_ATTRIBUTE } from '../lib/router.ts';
import { type ConfirmOptions, confirmAction } from './confirm.ts';
import { breaksSection } from './offer-breaks.ts';
import { budgetSection } from './offer-budget.ts';
import type { EditOptions, EditorContext } from './offer-controls.ts';
import { deliverySection } from './offer-delivery.ts';
import { materialsSection } from './offer-materials.ts';
import { qualitiesSection } from './offer-qualities.ts';
import { errorSummary, previewPanel, SUMMARY_ID } from './offer-summary.ts';
import { infillSection, termsSection } from './offer-terms.ts';
import { badge } from './page-header.ts';

const REMOVE_KEY_OFFER: ConfirmOptions = {
  title: 'Remove this key’s own offer?',
  body: 'The key then offers the account offer. Unsaved changes here are lost.',
  confirmLabel: 'Remove own offer',
};
const RESET_OFFER: ConfirmOptions = {
  title: 'Reset to the default offer?',
  body:
    'Your offer is deleted. Shoppers then choose from every priced material profile, with the Draft, Standard and ' +
    'Fine qualities your printer allows, and no minimum prices. Widget keys with their own offer keep it.',
  confirmLabel: 'Reset offer',
};

export class OfferEditor extends AppElement {
  static override properties = {
    offer: { attribute: false },
    target: { attribute: false },
    materials: { attribute: false },
    printer: { attribute: false },
    printers: { attribute: false },
    shop: { attribute: false },
    draft: { state: true },
    submitted: { state: true },
    busy: { state: true },
    serverError: { state: true },
    announcement: { state: true },
    notice: { state: true },
  };
  declare offer: OfferView;
  declare target: OfferTarget;
  declare materials: MaterialChoice[];
  declare printer: Record<string, unknown>;
  declare printers: PrinterChoice[];
  /** The shop as GET /v2/widget/config describes it (currency, build volume), for the preview. */
  declare shop: WidgetConfig;
  declare draft: OfferDraft;
  declare submitted: boolean;
  declare busy: boolean;
  declare serverError: ApiError | null;
  declare announcement: string;
  /** What the last save or reset did, beside the buttons. */
  declare notice: string;
  /** Rows the merchant has typed in: a new preset's empty fields are not flagged before that (or a save). */
  private touched = new Set<number>();
  private savedBody = '';
  private lastValid: Offer | null = null;
  private focusAfter: string | null = null;

  constructor() {
    super();
    this.materials = [];
    this.printer = {};
    this.printers = [];
    this.submitted = false;
    this.busy = false;
    this.serverError = null;
    this.announcement = '';
    this.notice = '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('offer') && this.offer) this.load(this.offer);
  }

  private load(offer: Offer) {
    this.draft = draftFrom(offer);
    this.savedBody = JSON.stringify(offerBody(this.draft));
    this.lastValid = offer;
    this.touched = new Set();
    this.submitted = false;
    this.serverError = null;
  }

  private get dirty(): boolean {
    return this.draft !== undefined && JSON.stringify(offerBody(this.draft)) !== this.savedBody;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('beforeunload', this.onBeforeUnload);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('beforeunload', this.onBeforeUnload);
  }

  /** Closing or reloading the tab with unsaved changes asks first (the app shell asks on in-app navigation). */
  private onBeforeUnload = (e: BeforeUnloadEvent) => {
    if (this.dirty) e.preventDefault();
  };

  protected override updated(): void {
    // Preset settings with a problem open by themselves (and are never closed for the merchant).
    for (const details of this.querySelectorAll<HTMLDetailsElement>('details.preset-settings')) {
      if (details.querySelector('.field-error')) details.open = true;
    }
    this.toggleAttribute(UNSAVED_ATTRIBUTE, this.dirty);
    if (!this.focusAfter) return;
    document.getElementById(this.focusAfter)?.focus();
    this.focusAfter = null;
  }

  private edit = (change: (d: OfferDraft) => void, opts: EditOptions = {}) => {
    change(this.draft);
    if (opts.touch !== undefined) this.touched.add(opts.touch);
    if (opts.say) this.announcement = opts.say;
    if (opts.focus) this.focusAfter = opts.focus;
    this.notice = '';
    this.serverError = null;
    this.draft = { ...this.draft };
  };

  /** Problems by field path: the API's rules on the draft, then what the server said about the last save. */
  private problems(): Map<string, string> {
    const map = new Map<string, string>();
    const untouchedNewRow = (path: string) => {
      const row = this.rowOf(path);
      return !this.submitted && row !== undefined && row.isNew && !this.touched.has(row.key);
    };
    for (const issue of [...draftIssues(this.draft), ...(this.serverError?.fields ?? [])]) {
      if (!map.has(issue.field) && !untouchedNewRow(issue.field)) map.set(issue.field, issue.message);
    }
    return map;
  }

  /** The row of a list a field path points into (a quality, a quantity break, a delivery option). */
  private rowOf(path: string): { key: number; isNew: boolean } | undefined {
    const m = /^(qualities|quantity_breaks|lead_times)\.(\d+)\./.exec(path);
    if (!m) return undefined;
    const lists = {
      qualities: this.draft.qualities,
      quantity_breaks: this.draft.quantityBreaks,
      lead_times: this.draft.leadTimes,
    };
    return lists[m[1] as keyof typeof lists][Number(m[2])];
  }

  private context(problems: Map<string, string>): EditorContext {
    return {
      draft: this.draft,
      currency: this.shop.currency,
      materials: this.materials,
      printer: this.printer,
      printers: this.printers,
      problem: (path) => problems.get(path),
      label: (path) => fieldLabel(path, this.draft),
      edit: this.edit,
    };
  }

  private async submit(e: SubmitEvent) {
    e.preventDefault();
    this.submitted = true;
    if (this.problems().size) return this.focusSummary();
    const t = this.target;
    const message =
      t.kind === 'account' ? 'Offer saved. The widget offers it from now on.' : `Own offer of “${t.name}” saved.`;
    // The body carries what the merchant typed as is (text in a number field): the server names what is wrong.
    const body = offerBody(this.draft) as OfferInput;
    await this.run(async () => this.changed(await saveOffer(t, body), message));
  }

  private async reset() {
    const forKey = this.target.kind === 'key';
    if (!(await confirmAction(forKey ? REMOVE_KEY_OFFER : RESET_OFFER))) return;
    const message = forKey
      ? 'The key uses the account offer again.'
      : 'Back to the default offer, derived from your profiles.';
    await this.run(async () => this.changed(await removeOffer(this.target), message));
  }

  /** Runs a save or reset; a refusal is shown in the summary, which takes focus. */
  private async run(action: () => Promise<void>) {
    this.busy = true;
    try {
      await action();
    } catch (err) {
      this.serverError = toApiError(err);
      this.submitted = true;
      this.focusSummary();
    } finally {
      this.busy = false;
    }
  }

  private focusSummary() {
    this.focusAfter = SUMMARY_ID;
    this.requestUpdate();
  }

  private changed(offer: OfferView, message: string) {
    this.notice = message;
    emit(this, 'sq-offer-changed', { offer, message });
  }

  private discard = () => {
    this.load(this.offer);
    this.announcement = 'Changes discarded.';
  };

  protected override render() {
    if (!this.draft) return nothing;
    const problems = this.problems();
    const c = this.context(problems);
    const valid = draftOffer(this.draft);
    if (valid) this.lastValid = valid;
    const layerHeightOf = (q: Offer['qualities'][number]) => {
      const own = this.printers.find((p) => p.id === q.printer_profile)?.settings ?? this.printer;
      return Number(q.printer_config.layer_height ?? own.layer_height ?? 0);
    };
    return html`<form class="offer-editor" @submit=${this.submit} novalidate aria-label="Offer">
      <div class="offer-layout">
        <div class="offer-main">
          ${this.submitted ? errorSummary(problems, this.draft, this.serverError) : nothing}
          ${materialsSection(c)} ${qualitiesSection(c)} ${infillSection(c)} ${termsSection(c)}
          ${breaksSection(c)} ${deliverySection(c)} ${budgetSection(c)}
          ${this.actions()}
        </div>
        ${previewPanel(this.shop, this.lastValid, layerHeightOf, valid !== null)}
      </div>
      <div class="visually-hidden" role="status" aria-live="polite">${this.announcement}</div>
    </form>`;
  }

  private actions() {
    const dirty = this.dirty;
    return html`<div class="form-actions sticky-actions">
      <button type="submit" class="btn btn-primary" ?disabled=${this.busy}>
        ${this.busy ? 'Saving…' : this.saveLabel()}</button>
      <button type="button" class="btn" ?disabled=${!dirty || this.busy} @click=${this.discard}>Discard changes</button>
      ${dirty ? badge('Unsaved changes', 'warn') : nothing}
      <span class="save-notice" role="status">${this.notice}</span>
      <span class="spacer"></span>
      ${this.resetButton()}
    </div>`;
  }

  private saveLabel() {
    if (this.target.kind === 'account') return 'Save offer';
    return this.offer.source === 'widget_key' ? 'Save own offer' : 'Give this key its own offer';
  }

  /** Only when there is something to remove: the account's own offer, or the key's. */
  private resetButton() {
    const own = this.target.kind === 'key' ? this.offer.source === 'widget_key' : this.offer.source === 'account';
    if (!own) return nothing;
    return html`<button type="button" class="btn btn-danger-quiet" ?disabled=${this.busy} @click=${this.reset}>
      ${this.target.kind === 'key' ? 'Remove own offer' : 'Reset to default offer'}</button>`;
  }
}
customElements.define('sq-offer-editor', OfferEditor);
