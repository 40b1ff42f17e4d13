// Offer (#/offer): what storefront shoppers may choose, with a preview of the widget, and the quote signing
// secret. The same editor gives one widget key its own offer (#/widget-keys/{id}/offer).
import { html, nothing } from 'lit';
import type { WidgetConfig } from '../../../widget/src/types.ts';
import { badge, pageHeader } from '../components/page-header.ts';
import { renderLoad } from '../components/states.ts';
import { ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import type { OfferChanged } from '../lib/events.ts';
import { Loader } from '../lib/loader.ts';
import { loadOffer, loadWidgetConfig, type OfferTarget, type OfferView, SOURCE_TEXT } from '../lib/offer.ts';
import {
  listProfiles,
  type MaterialChoice,
  materialChoices,
  type PrinterChoice,
  printerBaseline,
  printerChoices,
} from '../lib/profiles.ts';
import '../components/offer-editor.ts';
import '../components/signing-secret.ts';

const ACCOUNT_LEAD =
  'What shoppers may choose in your storefront widget — materials and colours, qualities, infill ' +
  'and quantities — and your minimum prices. Prices come from your profiles; shoppers only choose.';
const KEY_LEAD = html`What shoppers may choose in the widgets that use this key.
  <a href="#/widget-keys">Back to the widget keys</a>`;

interface OfferData {
  target: OfferTarget;
  offer: OfferView;
  materials: MaterialChoice[];
  printer: Record<string, unknown>;
  printers: PrinterChoice[];
  shop: WidgetConfig;
}

async function keyTarget(id: string): Promise<OfferTarget> {
  const keys = (await call(api.GET('/dashboard/api/widget-keys'))).data;
  const key = keys.find((k) => k.widget_key_id === id);
  if (!key) throw new ApiError(404, 'not_found', `No live widget key ${id} exists in this account.`);
  return { kind: 'key', id, name: key.name };
}

async function loadAll(keyId: string | null): Promise<OfferData> {
  const target = keyId ? await keyTarget(keyId) : ({ kind: 'account' } as const);
  const [offer, materials, printers, globals, shop] = await Promise.all([
    loadOffer(target),
    listProfiles('material'),
    listProfiles('printer'),
    listProfiles('global'),
    loadWidgetConfig(),
  ]);
  return {
    target,
    offer,
    materials: materialChoices(materials),
    printer: printerBaseline(printers, globals),
    printers: printerChoices(printers, globals),
    shop,
  };
}

export class OfferPage extends AppElement {
  static override properties = { keyId: { attribute: false }, offer: { state: true } };
  /** A widget key id: edit that key's own offer; null: the account's. */
  declare keyId: string | null;
  /** The offer in effect, once loaded or changed. */
  declare offer: OfferView | null;
  private data = new Loader<OfferData>(this, () => loadAll(this.keyId));

  constructor() {
    super();
    this.keyId = null;
    this.offer = null;
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    // Another key's offer in the same page element (#/widget-keys/a/offer → #/widget-keys/b/offer).
    if (changed.has('keyId') && this.hasUpdated) {
      this.offer = null;
      void this.data.reload();
    }
  }

  /** The signatures panel sits below the long editor: this takes keyboard and screen-reader users there too. */
  private toSignatures = () => {
    const heading = this.querySelector<HTMLElement>('#sig-h');
    heading?.scrollIntoView({ block: 'start' });
    heading?.focus();
  };

  private onChanged = (e: CustomEvent<OfferChanged>) => {
    this.offer = e.detail.offer;
  };

  protected override render() {
    const d = this.data.data;
    const forKey = d?.target.kind === 'key' ? d.target : null;
    const header =
      forKey || this.keyId
        ? pageHeader(`Offer of widget key “${forKey?.name ?? this.keyId}”`, KEY_LEAD)
        : pageHeader(
            'Offer',
            ACCOUNT_LEAD,
            html`<button type="button" class="btn" @click=${this.toSignatures}>
          Quote signing secret</button>`,
          );
    return html`${header}
      ${renderLoad(
        this.data.state,
        'the offer',
        (data) => this.body(data),
        () => this.data.reload(),
      )}`;
  }

  private body(data: OfferData) {
    const offer = this.offer ?? data.offer;
    return html`<section class="panel" aria-labelledby="offer-h">
        <div class="panel-head">
          <h2 id="offer-h">${data.target.kind === 'key' ? 'This key’s offer' : 'Your offer'}</h2>
          <span data-testid="offer-source">${this.sourceBadge(data.target, offer)}</span>
        </div>
        ${this.sourceNote(data.target, offer)}
        <sq-offer-editor .offer=${offer} .target=${data.target} .materials=${data.materials} .printer=${data.printer}
          .printers=${data.printers} .shop=${data.shop} @sq-offer-changed=${this.onChanged}></sq-offer-editor>
      </section>
      ${data.target.kind === 'account' ? html`<sq-signing-secret></sq-signing-secret>` : nothing}`;
  }

  private sourceBadge(target: OfferTarget, offer: OfferView) {
    if (target.kind === 'key') {
      return offer.source === 'widget_key' ? badge('Has its own offer', 'info') : badge('Uses the account offer');
    }
    return badge(SOURCE_TEXT[offer.source], offer.source === 'account' ? 'ok' : 'neutral');
  }

  private sourceNote(target: OfferTarget, offer: OfferView) {
    if (target.kind === 'key' && offer.source !== 'widget_key') {
      return html`<p class="muted">This key offers the <a href="#/offer">account offer</a>, shown below. Change it and
        save to give the key its own offer (for a trade counter with other materials, say); the account offer stays
        as it is.</p>`;
    }
    if (target.kind === 'key') {
      return html`<p class="muted">Widgets using this key offer this instead of the
        <a href="#/offer">account offer</a>.</p>`;
    }
    if (offer.source === 'default') {
      return html`<p class="muted">You have not saved an offer yet: this one is derived from your profiles (every
        priced material, the qualities your printer allows). Save it to fix it, or change it first.</p>`;
    }
    return nothing;
  }
}
customElements.define('sq-offer-page', OfferPage);
