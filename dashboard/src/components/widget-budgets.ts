// What each widget key's shoppers used of its budget (GET /v2/usage, widget_budgets): the key's share of the
// month's quotes, today's quotes and the storage of shopper uploads, each as a meter. The limits are set in the
// offer (docs/limits.md, "Widget budgets").
import { html, type TemplateResult } from 'lit';
import type { Usage } from '../lib/types.ts';
import { bytes, num } from '../lib/format.ts';
import { meter } from './page-header.ts';
import { emptyView } from './states.ts';

type KeyBudget = Usage['widget_budgets'][number];

const used = (n: number, limit: number) => `${num(n, 0)} of ${num(limit, 0)}`;

function keyBudget(k: KeyBudget): TemplateResult {
  const m = k.monthly_quotes;
  return html`<section class="card" data-testid="widget-budget" aria-label="Budget of widget key ${k.name}">
    <h3>${k.name}</h3>
    ${meter(`Share of this month's quotes (${m.share_percent} %)`, m.used, m.limit, used(m.used, m.limit))}
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

export function widgetBudgetsView(list: KeyBudget[]): TemplateResult {
  if (!list.length) return emptyView('No widget keys', 'A widget key’s budget shows here once you create one.');
  return html`<div class="cards">${list.map(keyBudget)}</div>`;
}
