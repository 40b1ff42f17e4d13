// Orders: every add to a cart, newest first (GET /v2/widget/cart), with the shopper's choices, the placement
// priced, the signed quote, the model file and whether the shop's cart took the line; a CSV export of all.
import { html, nothing } from 'lit';
import { cartBadge } from '../components/cart-status.ts';
import { lineFormula } from '../components/line-formula.ts';
import { pageHeader } from '../components/page-header.ts';
import { pager } from '../components/pager.ts';
import { emptyView, renderLoad } from '../components/states.ts';
import { api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime, money, num } from '../lib/format.ts';
import { Loader } from '../lib/loader.ts';
import { href, navigate } from '../lib/router.ts';
import type { Order, Page } from '../lib/types.ts';
import '../components/quote-requests.ts';

const LIMIT = 20;

function choices(o: Order): string {
  const c = o.choices;
  if (!c) return '—';
  return [c.material, c.color, c.quality_label, `${num(c.infill, 0)} % infill`].filter(Boolean).join(' · ');
}

function placement(o: Order): string {
  const p = o.placement;
  if (!p) return '—';
  const size = `${num(p.dimensions.x)} × ${num(p.dimensions.y)} × ${num(p.dimensions.z)} mm`;
  return `${size} (${p.unit}, ×${p.scale}) · ${p.orientation.replace('_', ' ')} · revision ${o.file_revision}`;
}

export class OrdersPage extends AppElement {
  static override properties = { query: { attribute: false } };
  declare query: URLSearchParams;
  private orders = new Loader<Page<Order>>(this, () =>
    call(api.GET('/v2/widget/cart', { params: { query: { page: this.page, limit: LIMIT } } })),
  );

  constructor() {
    super();
    this.query = new URLSearchParams();
  }

  private get page(): number {
    return Math.max(1, Number(this.query.get('page')) || 1);
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('query') && changed.get('query')) void this.orders.reload();
  }

  protected override render() {
    return html`${pageHeader(
      'Orders',
      'Every part shoppers added to a cart through your widget, newest first. "Not in a cart": your page did not take the line (no cart connected); the widget asked the shopper for a name and an e-mail, and what they sent is under Quote requests.',
      html`<a class="btn" href="/v2/widget/cart/export" download>Export CSV</a>`,
    )}
      <section class="panel" aria-labelledby="rfq-h">
        <h2 id="rfq-h">Quote requests</h2>
        <p class="muted small">Parts the widget could not sell at once: price them, and the shopper gets a link to order.</p>
        <sq-quote-requests></sq-quote-requests>
      </section>
      <section class="panel" aria-label="Orders">
        ${renderLoad(
          this.orders.state,
          'orders',
          (p) => this.results(p),
          () => this.orders.reload(),
        )}
      </section>`;
  }

  private results(p: Page<Order>) {
    if (!p.data.length) {
      return emptyView(
        'No orders yet',
        'Parts appear here as soon as a shopper adds one to the cart through your widget.',
        html`<a class="btn" href="#/widget-keys">Embed the widget</a>`,
      );
    }
    return html`<p class="muted small" role="status">${num(p.total, 0)} cart additions.</p>
      <div class="table-wrap"><table class="table" data-testid="orders">
        <caption class="visually-hidden">Orders</caption>
        <thead><tr>
          <th scope="col">Added</th><th scope="col">Part</th><th scope="col">Choices</th><th scope="col" class="num">Qty</th>
          <th scope="col" class="num">Total</th><th scope="col">Status</th><th scope="col">Signed quote</th>
        </tr></thead>
        <tbody>${p.data.map((o) => this.row(o))}</tbody>
      </table></div>
      ${pager('Order pages', p.page, p.limit, p.total, p.has_more, (n) => navigate(['orders'], { page: n }))}`;
  }

  private row(o: Order) {
    const name = o.file_name ?? o.file_id;
    return html`<tr data-line=${o.cart_line_id}>
      <td>${dateTime(o.created_at)}</td>
      <td><a href=${o.file_url} download aria-label=${`Download ${name}`}>${name}</a>
        <div class="muted small">${placement(o)}</div></td>
      <td>${choices(o)}${
        o.lead_time
          ? html`<div class="muted small">${o.lead_time.label}, ships by ${o.lead_time.ships_by}</div>`
          : nothing
      }</td>
      <td class="num">${num(o.quantity, 0)}</td>
      <td class="num"><strong>${money(o.total_price, o.currency)}</strong><div class="muted small">${lineFormula(o)}</div></td>
      <td>${cartBadge(o)}${o.origin ? html`<div class="muted small">${o.origin}</div>` : nothing}</td>
      <td><a href=${href(['quotes', o.quote_id])}><code>${o.quote_id}</code></a>
        <details><summary>Signature</summary><code class="small break">${o.signature.payload}</code></details></td>
    </tr>`;
  }
}
customElements.define('sq-orders-page', OrdersPage);
