// The Orders page's quote requests (GET /v2/quote-requests): parts shoppers asked you to price, with their contact
// and note; "Price this request" sets the price of one part and its validity (POST …/price), then shows the link the
// shopper orders from, with Copy, and whether it was e-mailed (docs/dashboard.md, "Orders").
import { html, nothing } from 'lit';
import { type ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime, money, num } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import type { Page, QuoteRequest } from '../lib/types.ts';
import { badge } from './page-header.ts';
import { formError, renderLoad } from './states.ts';
import './copy-button.ts';

const REASONS: Record<QuoteRequest['reason'], string> = {
  no_cart: 'No cart on the page took it',
  not_priceable: 'No automatic price',
  merchant_rule: 'Above your rule',
};

const STATUS: Record<QuoteRequest['status'], [string, 'warn' | 'info' | 'ok']> = {
  requested: ['Requested', 'warn'],
  priced: ['Priced', 'info'],
  ordered: ['Ordered', 'ok'],
};

function choices(r: QuoteRequest): string {
  const c = r.choices;
  if (!c) return '—';
  return [c.material, c.color, c.quality_label, `${num(c.infill, 0)} % infill`, c.lead_time?.label]
    .filter(Boolean)
    .join(' · ');
}

export class QuoteRequests extends AppElement {
  static override properties = { pricing: { state: true }, busy: { state: true }, error: { state: true } };
  /** The request whose price form is open. */
  declare pricing: string | null;
  declare busy: boolean;
  declare error: ApiError | null;
  private list = new Loader<Page<QuoteRequest>>(this, () =>
    call(api.GET('/v2/quote-requests', { params: { query: { limit: 100 } } })),
  );

  constructor() {
    super();
    this.pricing = null;
    this.busy = false;
    this.error = null;
  }

  private async price(e: SubmitEvent, r: QuoteRequest) {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const days = String(form.get('valid_days') ?? '').trim();
    this.busy = true;
    this.error = null;
    try {
      await call(
        api.POST('/v2/quote-requests/{request_id}/price', {
          params: { path: { request_id: r.request_id } },
          body: {
            unit_price: Number(String(form.get('unit_price') ?? '').replace(',', '.')),
            ...(days ? { valid_days: Number(days) } : {}),
          },
        }),
      );
      this.pricing = null;
      await this.list.reload();
      void this.updateComplete.then(() =>
        this.querySelector<HTMLElement>(`[data-request="${r.request_id}"] .rfq-link input`)?.focus(),
      );
    } catch (err) {
      this.error = toApiError(err);
    } finally {
      this.busy = false;
    }
  }

  private open(r: QuoteRequest) {
    this.pricing = r.request_id;
    this.error = null;
    void this.updateComplete.then(() => this.querySelector<HTMLElement>(`#rfq-price-${r.request_id}`)?.focus());
  }

  protected override render() {
    return renderLoad(
      this.list.state,
      'quote requests',
      (p) => this.results(p),
      () => this.list.reload(),
    );
  }

  private results(p: Page<QuoteRequest>) {
    if (!p.data.length)
      return html`<p class="muted">No quote requests yet. When the widget cannot sell a part at once (no cart on the
        page, no automatic price, above your rule), the shopper can ask you for a price; it appears here.</p>`;
    return html`<div class="table-wrap"><table class="table" data-testid="quote-requests">
      <caption class="visually-hidden">Quote requests</caption>
      <thead><tr>
        <th scope="col">Asked</th><th scope="col">Shopper</th><th scope="col">Part</th><th scope="col">Choices</th>
        <th scope="col" class="num">Qty</th><th scope="col">Status</th><th scope="col">Price</th>
      </tr></thead>
      <tbody>${p.data.map((r) => this.row(r))}</tbody>
    </table></div>`;
  }

  private row(r: QuoteRequest) {
    const [label, tone] = STATUS[r.status];
    return html`<tr data-request=${r.request_id}>
      <td>${dateTime(r.created_at)}<div class="muted small">${REASONS[r.reason]}${r.reason_code ? html` (<code>${r.reason_code}</code>)` : nothing}</div></td>
      <td>${r.name}<div class="small"><a href="mailto:${r.email}">${r.email}</a></div>
        ${r.note ? html`<p class="small pre-line">${r.note}</p>` : nothing}</td>
      <td><a href=${r.file_url} download aria-label=${`Download ${r.file_name}`}>${r.file_name}</a>
        ${r.origin ? html`<div class="muted small">${r.origin}</div>` : nothing}</td>
      <td>${choices(r)}</td>
      <td class="num">${num(r.quantity, 0)}</td>
      <td>${badge(label, tone)}</td>
      <td>${this.priceCell(r)}</td>
    </tr>`;
  }

  private priceCell(r: QuoteRequest) {
    const p = r.price;
    const open = this.pricing === r.request_id;
    const form = html`<form class="stack rfq-price" @submit=${(e: SubmitEvent) => this.price(e, r)} novalidate
            aria-label=${`Price the request of ${r.name}`}>
            <div class="field">
              <label for="rfq-price-${r.request_id}">Price per part, tax included</label>
              <input id="rfq-price-${r.request_id}" name="unit_price" inputmode="decimal" required
                aria-invalid=${this.error?.fields.some((f) => f.field === 'unit_price') ? 'true' : 'false'} />
            </div>
            <div class="field">
              <label for="rfq-days-${r.request_id}">Valid for (days)</label>
              <input id="rfq-days-${r.request_id}" name="valid_days" inputmode="numeric" placeholder="your quote validity" />
            </div>
            <div class="row">
              <button type="submit" class="btn btn-primary btn-small" ?disabled=${this.busy}>${this.busy ? 'Pricing…' : 'Price and make the link'}</button>
              <button type="button" class="btn btn-small" @click=${() => (this.pricing = null)}>Cancel</button>
            </div>
            ${formError(this.error)}
          </form>`;
    if (!p)
      return html`${
        open
          ? form
          : html`<button type="button" class="btn btn-small btn-primary" @click=${() => this.open(r)}
          aria-label=${`Price this request of ${r.name}`}>Price this request</button>`
      }`;
    const link = p.order_url ?? p.token;
    const mail = r.email_delivery;
    return html`<strong>${money(p.total_price, p.currency)}</strong>
      <div class="muted small">${money(p.unit_price, p.currency)} each · holds until ${dateTime(p.expires_at)}</div>
      <div class="rfq-link field">
        <label for="rfq-link-${r.request_id}" class="small">Link to order it</label>
        <input id="rfq-link-${r.request_id}" readonly .value=${link} />
        <sq-copy .text=${link} label="Copy link"></sq-copy>
      </div>
      <p class="small" role="status">${
        mail.sent_at
          ? `E-mailed to ${r.email} on ${dateTime(mail.sent_at)}.`
          : mail.configured
            ? `Not e-mailed: ${mail.error ?? 'sending…'} Copy the link and send it yourself.`
            : 'E-mail is not configured on this server (SMTP_URL): copy the link and send it to the shopper.'
      }</p>
      ${
        r.status === 'priced'
          ? open
            ? form
            : html`<button type="button" class="btn btn-small" @click=${() => this.open(r)}>Change the price</button>`
          : nothing
      }`;
  }
}
customElements.define('sq-quote-requests', QuoteRequests);
