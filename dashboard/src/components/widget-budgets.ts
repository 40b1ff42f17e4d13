// What each widget key's shoppers used of its budget (GET /v2/usage, widget_budgets): the key's share of the
// month's quotes (with the part kept for new shoppers, and the addresses and sessions that spent most of it),
// today's quotes and the storage of shopper uploads, each as a meter. The limits are set in the offer
// (docs/limits.md, "Widget budgets").
import { html, type TemplateResult } from 'lit';
import { bytes, num } from '../lib/format.ts';
import type { Usage } from '../lib/types.ts';
import { meter } from './page-header.ts';
import { emptyView } from './states.ts';

type KeyBudget = Usage['widget_budgets'][number];

const used = (n: number, limit: number) => `${num(n, 0)} of ${num(limit, 0)}`;

function keyBudget(k: KeyBudget): TemplateResult {
  const m = k.monthly_quotes;
  return html`<section class="card" data-testid="widget-budget" aria-label="Budget of widget key ${k.name}">
    <h3>${k.name}</h3>
    ${meter(`Share of this month's quotes (${m.share_percent} %)`, m.used, m.limit, used(m.used, m.limit))}
    ${
      m.newcomer_reserve
        ? html`<p class="muted small">The last ${num(m.newcomer_reserve, 0)} are kept for shoppers new this month.</p>`
        : ''
    }
    ${spenders(m)}
    ${meter('Quotes today', k.quotes_today.used, k.quotes_today.limit, used(k.quotes_today.used, k.quotes_today.limit))}
    ${meter(
      'Storage of shopper uploads',
      k.upload_storage.used_bytes,
      k.upload_storage.limit_bytes,
      `${bytes(k.upload_storage.used_bytes)} of ${bytes(k.upload_storage.limit_bytes)}`,
    )}
    <p class="muted small">Each shopper may ask for ${num(k.quotes_per_shopper_hour, 0)} quotes an hour.
      <a href="#/widget-keys/${k.widget_key_id}/offer">Change the budget</a></p>
  </section>`;
}

/** Who spent the month's share: the addresses and shopper sessions with the most counted quotes. */
function spenders(m: KeyBudget['monthly_quotes']): TemplateResult | string {
  if (!m.top_addresses.length) return '';
  const rows = (list: { name: string; quotes: number }[]) =>
    list.map((r) => html`<tr><td><code>${r.name}</code></td><td class="num">${num(r.quotes, 0)}</td></tr>`);
  return html`<details data-testid="share-spenders">
    <summary>Who used the share</summary>
    <table class="table table-compact">
      <thead><tr><th>Shopper address</th><th class="num">Quotes</th></tr></thead>
      <tbody>${rows(m.top_addresses.map((a) => ({ name: a.address, quotes: a.quotes })))}</tbody>
    </table>
    <table class="table table-compact">
      <thead><tr><th>Shopper session</th><th class="num">Quotes</th></tr></thead>
      <tbody>${rows(m.top_sessions.map((x) => ({ name: x.session, quotes: x.quotes })))}</tbody>
    </table>
  </details>`;
}

export function widgetBudgetsView(list: KeyBudget[]): TemplateResult {
  if (!list.length) return emptyView('No widget keys', 'A widget key’s budget shows here once you create one.');
  return html`<div class="cards">${list.map(keyBudget)}</div>`;
}
