// One quote: price breakdown, print statistics, what became of it in the shop's carts, the resolved settings
// with their sources, the model file download, and delete.
import { html, nothing } from 'lit';
import { cartBadge } from '../components/cart-status.ts';
import { confirmAction } from '../components/confirm.ts';
import { lineFormula } from '../components/line-formula.ts';
import { pageHeader } from '../components/page-header.ts';
import { priceBreakdownView, printStatsView, quoteHeadline } from '../components/quote-summary.ts';
import { statusBadge } from '../components/quote-table.ts';
import { resolvedSettingsView } from '../components/resolved-settings.ts';
import { renderLoad } from '../components/states.ts';
import { api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import { profileNames } from '../lib/profiles.ts';
import { navigate } from '../lib/router.ts';
import type { Order, Page, Profile, Quote } from '../lib/types.ts';

export class QuotePage extends AppElement {
  static override properties = { quoteId: {}, notice: { state: true } };
  declare quoteId: string;
  declare notice: string;
  private quote = new Loader<Quote>(this, () =>
    call(api.GET('/v2/quotes/{quote_id}', { params: { path: { quote_id: this.quoteId } } })),
  );
  // Names for the settings' sources; the page still works (with ids) if this fails.
  private names = new Loader<Map<string, Profile>>(this, () => profileNames().catch(() => new Map()));
  // Its adds to a cart, newest first (none for most API quotes).
  private carts = new Loader<Page<Order>>(this, () =>
    call(api.GET('/v2/widget/cart', { params: { query: { quote_id: this.quoteId, limit: 100 } } })),
  );

  constructor() {
    super();
    this.quoteId = '';
    this.notice = '';
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('quoteId') && changed.get('quoteId')) {
      void this.quote.reload();
      void this.carts.reload();
    }
  }

  private async deleteQuote(q: Quote) {
    const ok = await confirmAction({
      title: 'Delete this quote?',
      body: "It leaves your history (it still counts toward this month's usage). The model file stays.",
      confirmLabel: 'Delete quote',
    });
    if (!ok) return;
    try {
      await call(api.DELETE('/v2/quotes/{quote_id}', { params: { path: { quote_id: q.quote_id } } }));
      navigate(['quotes']);
    } catch (err) {
      this.notice = `Could not delete the quote: ${toApiError(err).message}`;
    }
  }

  protected override render() {
    const q = this.quote.data;
    return html`${pageHeader(q ? `Quote for ${q.file_name}` : 'Quote', q ? html`<code>${q.quote_id}</code> · ${statusBadge(q)} · created ${dateTime(q.created_at)}` : 'Price, print statistics and the settings it used.', html`<a class="btn" href="#/quotes">All quotes</a>`)}
      <div role="status">${this.notice ? html`<p class="alert alert-error">${this.notice}</p>` : nothing}</div>
      ${renderLoad(
        this.quote.state,
        'the quote',
        (d) => this.body(d),
        () => this.quote.reload(),
      )}`;
  }

  private body(q: Quote) {
    const download = `/v2/file/${encodeURIComponent(q.file_id)}`;
    return html`${
      q.status === 'failed' && q.error
        ? html`<div class="alert alert-error" role="alert"><p><strong>The quote failed:</strong> ${q.error.message}</p><p class="small">Code: <code>${q.error.code}</code></p></div>`
        : nothing
    }
      ${q.status === 'completed' ? html`<section class="panel" aria-label="Summary">${quoteHeadline(q)}</section>` : nothing}
      ${q.choices ? choicesView(q.choices) : nothing}
      <div class="two-col">
        <section class="panel" aria-labelledby="price-h"><h2 id="price-h">Price</h2>${priceBreakdownView(q)}</section>
        <section class="panel" aria-labelledby="print-h"><h2 id="print-h">Print statistics</h2>${printStatsView(q)}</section>
      </div>
      ${this.cartView()}
      <section class="panel" aria-labelledby="file-h">
        <h2 id="file-h">Model file</h2>
        <p><a class="btn" href=${download} download=${q.file_name}>Download ${q.file_name}</a>
          <span class="muted small">The original upload (<code>GET ${download}</code>); gone if the file was deleted.</span></p>
      </section>
      <section class="panel" aria-labelledby="settings-h">
        <h2 id="settings-h">Resolved settings</h2>
        <p class="muted small">What was sliced and priced, and where each value came from: the request, one of your profiles, a global profile, or the built-in default.</p>
        ${resolvedSettingsView(q, this.names.data ?? new Map())}
      </section>
      <section class="panel danger-zone" aria-labelledby="delete-h">
        <h2 id="delete-h">Delete</h2>
        <p>Removes the quote from your history.</p>
        <button type="button" class="btn btn-danger" @click=${() => this.deleteQuote(q)}>Delete quote</button>
      </section>`;
  }

  /** Every add of this quote to a cart, with whether a cart took it (the shop's Orders). */
  private cartView() {
    const lines = this.carts.data?.data;
    if (!lines) return nothing;
    return html`<section class="panel" aria-labelledby="cart-h">
      <h2 id="cart-h">Cart</h2>
      ${
        lines.length
          ? html`<ul data-testid="quote-carts">${lines.map(
              (o) => html`<li>${dateTime(o.created_at)}: ${lineFormula(o)} ${cartBadge(o)}</li>`,
            )}</ul>
            <p class="small"><a href="#/orders">All orders</a></p>`
          : html`<p class="muted">Not added to a cart.</p>`
      }
    </section>`;
  }
}
/**
 * What the shopper picked in the widget, from the merchant's offer. Not the quantity: it changes after
 * pricing without a new quote, so the cart line holds the one that counts.
 */
function choicesView(c: NonNullable<Quote['choices']>) {
  const rows: [string, string][] = [
    ['Material', c.color ? `${c.material}, ${c.color}` : c.material],
    ['Quality', c.quality_label || c.quality],
    ['Infill', `${c.infill} %`],
  ];
  return html`<section class="panel" aria-labelledby="choices-h" data-testid="shopper-choices">
    <h2 id="choices-h">Shopper's choices</h2>
    <dl class="facts">${rows.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>
  </section>`;
}

customElements.define('sq-quote-page', QuotePage);
