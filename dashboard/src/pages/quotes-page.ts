// Quote history: paginated, filterable by material and date (filters are applied in the browser; see
// lib/quote-filter.ts). The filter lives in the address, so a filtered view can be bookmarked.
import { html, nothing } from 'lit';
import { pageHeader } from '../components/page-header.ts';
import { pager } from '../components/pager.ts';
import { quoteTable } from '../components/quote-table.ts';
import { emptyView, renderLoad } from '../components/states.ts';
import { api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { num } from '../lib/format.ts';
import { Loader } from '../lib/loader.ts';
import { offeredMaterials } from '../lib/offer.ts';
import { type FilteredPage, filteredQuotes, isFiltered, type QuoteFilter } from '../lib/quote-filter.ts';
import { navigate } from '../lib/router.ts';
import type { Order, Page, Quote } from '../lib/types.ts';

const LIMIT = 20;

type QuotesPageData = (Page<Quote> | FilteredPage) & { carts: Map<string, Order[]> };

/** The cart lines of the shown quotes, newest first, for the Cart column (one request per page). */
async function cartsOf(quotes: Quote[]): Promise<Map<string, Order[]>> {
  const carts = new Map<string, Order[]>();
  if (!quotes.length) return carts;
  const ids = quotes.map((q) => q.quote_id).join(',');
  const lines = await call(api.GET('/v2/widget/cart', { params: { query: { quote_id: ids, limit: 100 } } }));
  for (const line of lines.data) carts.set(line.quote_id, [...(carts.get(line.quote_id) ?? []), line]);
  return carts;
}

export class QuotesPage extends AppElement {
  static override properties = { query: { attribute: false } };
  declare query: URLSearchParams;
  private quotes = new Loader<QuotesPageData>(this, async () => {
    const page = await this.fetchPage();
    return { ...page, carts: await cartsOf(page.data) };
  });
  // The materials the shop offers its shoppers, not every profile the server knows.
  private materials = new Loader<string[]>(this, offeredMaterials);

  constructor() {
    super();
    this.query = new URLSearchParams();
  }

  private get filter(): QuoteFilter {
    return {
      material: this.query.get('material') ?? '',
      from: this.query.get('from') ?? '',
      to: this.query.get('to') ?? '',
    };
  }

  private get page(): number {
    return Math.max(1, Number(this.query.get('page')) || 1);
  }

  private fetchPage() {
    const f = this.filter;
    return isFiltered(f)
      ? filteredQuotes(f, this.page, LIMIT)
      : call(api.GET('/v2/quotes', { params: { query: { page: this.page, limit: LIMIT } } }));
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('query') && changed.get('query')) void this.quotes.reload();
  }

  private apply(e: SubmitEvent) {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const q = {
      material: String(data.get('material') ?? ''),
      from: String(data.get('from') ?? ''),
      to: String(data.get('to') ?? ''),
    };
    navigate(['quotes'], q);
  }

  private go(page: number) {
    navigate(['quotes'], { ...this.filter, page });
  }

  protected override render() {
    const f = this.filter;
    return html`${pageHeader('Quote history', 'Every quote of the account, newest first: from the API, the widget and "try it".')}
      <section class="panel" aria-labelledby="filter-h">
        <h2 id="filter-h" class="visually-hidden">Filter</h2>
        <form class="inline-form" @submit=${this.apply} role="search" aria-label="Filter quotes">
          <div class="field"><label for="qf-material">Material</label>
            <select id="qf-material" name="material">
              <option value="">All materials</option>
              ${(this.materials.data ?? []).map((m) => html`<option value=${m} ?selected=${m === f.material}>${m}</option>`)}
            </select></div>
          <div class="field"><label for="qf-from">From</label><input id="qf-from" name="from" type="date" .value=${f.from} /></div>
          <div class="field"><label for="qf-to">To</label><input id="qf-to" name="to" type="date" .value=${f.to} /></div>
          <button type="submit" class="btn btn-primary">Apply filter</button>
          ${isFiltered(f) ? html`<a class="btn" href="#/quotes">Clear</a>` : nothing}
        </form>
      </section>
      <section class="panel" aria-label="Quotes">
        ${renderLoad(
          this.quotes.state,
          'quotes',
          (p) => this.results(p, f),
          () => this.quotes.reload(),
        )}
      </section>`;
  }

  private results(p: QuotesPageData, f: QuoteFilter) {
    const filtered = isFiltered(f);
    if (!p.data.length) {
      return filtered
        ? emptyView(
            'No quotes match',
            'Try another material or a wider date range.',
            html`<a class="btn" href="#/quotes">Clear the filter</a>`,
          )
        : emptyView(
            'No quotes yet',
            'Quotes appear here as soon as the API, your widget or a profile\'s "try it" produces one.',
            html`<a class="btn" href="#/profiles/material">Try a quote</a>`,
          );
    }
    const scan = 'scanned' in p ? p : null;
    return html`<p class="muted small" role="status">${
      filtered
        ? html`${num(p.total, 0)}${p.has_more ? '+' : ''} matching quotes${scan ? ` (searched the latest ${num(scan.scanned, 0)}${scan.truncated ? '; narrow the dates to search further back' : ''})` : ''}.`
        : html`${num(p.total, 0)} quotes.`
    }</p>
      ${quoteTable(p.data, 'Quote history', p.carts)}
      ${pager('Quote history pages', p.page, p.limit, p.total, p.has_more, (n) => this.go(n))}`;
  }
}
customElements.define('sq-quotes-page', QuotesPage);
