// The quote rows shared by the overview (recent quotes) and the history page.
import { html, type TemplateResult } from 'lit';
import { dateTime, money, num } from '../lib/format.ts';
import { href } from '../lib/router.ts';
import type { Order, Quote } from '../lib/types.ts';
import { cartBadge } from './cart-status.ts';
import { lineFormula } from './line-formula.ts';
import { badge } from './page-header.ts';

export function statusBadge(q: Quote): TemplateResult {
  if (q.status === 'completed') return badge('Completed', 'ok');
  if (q.status === 'failed') return badge('Failed', 'bad');
  return badge(q.status === 'queued' ? 'Queued' : 'Slicing', 'info');
}

/** What became of a quote in the shop's carts: its latest add with its line's whole formula, and how many adds there were. */
function cartCell(lines: Order[] | undefined): TemplateResult | string {
  const [latest] = lines ?? [];
  if (!latest) return '—';
  return html`<a href="#/orders">${lineFormula(latest)}</a> ${cartBadge(latest)}${
    lines!.length > 1 ? html`<div class="muted small">${lines!.length} adds</div>` : ''
  }`;
}

/** The quote rows; with `carts` (cart lines by quote id, newest first) a Cart column too. */
export function quoteTable(quotes: Quote[], caption: string, carts?: Map<string, Order[]>): TemplateResult {
  return html`<div class="table-wrap"><table class="table">
    <caption class="visually-hidden">${caption}</caption>
    <thead><tr>
      <th scope="col">Quote</th><th scope="col">File</th><th scope="col">Material</th><th scope="col" class="num">Weight</th>
      <th scope="col" class="num">Unit price</th><th scope="col">Status</th>${carts ? html`<th scope="col">Cart</th>` : ''}
      <th scope="col">Created</th>
    </tr></thead>
    <tbody>
      ${quotes.map(
        (q) => html`<tr class=${q.status === 'failed' ? 'row-failed' : ''}>
          <td><a href=${href(['quotes', q.quote_id])}><code>${q.quote_id}</code></a></td>
          <td>${q.file_name}</td>
          <td>${q.printInfo ? `${q.printInfo.material} · ${q.printInfo.color}` : '—'}</td>
          <td class="num">${q.filament_weight !== undefined ? `${num(q.filament_weight)} g` : '—'}</td>
          <td class="num">${q.total_price !== undefined ? money(q.total_price, q.currency) : '—'}</td>
          <td>${statusBadge(q)}</td>
          ${carts ? html`<td>${cartCell(carts.get(q.quote_id))}</td>` : ''}
          <td>${dateTime(q.created_at)}</td>
        </tr>`,
      )}
    </tbody>
  </table></div>`;
}
