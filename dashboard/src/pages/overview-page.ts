// Overview: the first-run checklist until the shop is set up, the printer picker, plan, quote allowance, storage,
// recent quotes, and the two ways to start: the widget snippet for a shop page (once a widget key exists), beside
// the first API calls.
import { html } from 'lit';
import limitsGuide from '../../../docs/limits.md?url';
import { badge, meter, pageHeader } from '../components/page-header.ts';
import { quoteTable } from '../components/quote-table.ts';
import { setupChecklist } from '../components/setup-checklist.ts';
import { emptyView, renderLoad } from '../components/states.ts';
import { api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { bytes, dateTime, num } from '../lib/format.ts';
import { Loader } from '../lib/loader.ts';
import { embedSnippet } from '../lib/snippet.ts';
import type { Page, Quota, Quote, Setup, User, WidgetKey } from '../lib/types.ts';
import '../components/copy-button.ts';
import '../components/printer-picker.ts';

interface Overview {
  user: User;
  quota: Quota;
  recent: Page<Quote>;
  /** The first widget key, for the embed snippet; null before the merchant created one. */
  widgetKey: WidgetKey | null;
  setup: Setup;
}

/** The first two calls a merchant makes, with this server's address filled in. */
export function gettingStarted(origin: string): string {
  return [
    '# 1. Upload a model (STL, 3MF or OBJ)',
    `curl -s -H "Authorization: Bearer $SLICEQUOTE_TOKEN" \\`,
    `  -F "file=@calibration-cube.stl" ${origin}/v2/file`,
    '',
    '# 2. Quote it from a real slice (use the file_id from step 1)',
    `curl -s -H "Authorization: Bearer $SLICEQUOTE_TOKEN" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"material_config":{"filament_type":"PLA"}}' \\`,
    `  ${origin}/v2/file/quote/FILE_ID`,
  ].join('\n');
}

export class OverviewPage extends AppElement {
  private data = new Loader<Overview>(this, async () => {
    const [user, quota, recent, keys, setup] = await Promise.all([
      call(api.GET('/v2/user')),
      call(api.GET('/v2/quota')),
      call(api.GET('/v2/quotes', { params: { query: { limit: 5 } } })),
      call(api.GET('/dashboard/api/widget-keys')),
      call(api.GET('/v2/setup')),
    ]);
    return { user, quota, recent, setup, widgetKey: (Array.isArray(keys) ? keys : keys.data)[0] ?? null };
  });

  protected override render() {
    return html`${pageHeader('Overview', "Your plan, this month's usage and your latest quotes.")}
      ${renderLoad(
        this.data.state,
        'your account',
        (d) => this.body(d),
        () => this.data.reload(),
      )}`;
  }

  private body({ user, quota, recent, widgetKey, setup }: Overview) {
    return html`${setupChecklist(setup)}
      <sq-printer-picker></sq-printer-picker>
      <div class="cards">
        <section class="card" aria-labelledby="plan-h">
          <h2 id="plan-h">Plan</h2>
          <p class="big">${badge(user.plan, 'info')}</p>
          <p class="muted small">Signed in as ${user.email}. Quotes reset ${dateTime(quota.resets_at)}.</p>
        </section>
        <section class="card" aria-labelledby="quotes-h">
          <h2 id="quotes-h">Quotes this month</h2>
          <p class="big" data-testid="quotes-used">${num(user.quotes_used, 0)} <span class="muted">of ${num(user.quotes_limit, 0)}</span></p>
          ${meter('Quote allowance used', quota.quotes.used, quota.quotes.limit, `${num(quota.quotes.percent)} % used`)}
          <p class="muted small" data-testid="quotes-counting">Counted as your allowance counts them: every API quote, and
            one per model a shopper uploads, however many materials or qualities they try on it. The quote history and
            analytics list every quote, so they can show more.
            <a href=${limitsGuide} target="_blank" rel="noopener">What counts (docs/limits.md, Quotas)<span class="visually-hidden">
              (opens in a new tab)</span></a></p>
        </section>
        <section class="card" aria-labelledby="storage-h">
          <h2 id="storage-h">Storage</h2>
          <p class="big">${bytes(quota.storage.used)} <span class="muted">of ${bytes(quota.storage.limit)}</span></p>
          ${meter('Storage used', quota.storage.used, quota.storage.limit, `${num(quota.storage.percent)} % used`)}
        </section>
      </div>
      <section class="panel" aria-labelledby="recent-h">
        <div class="panel-head"><h2 id="recent-h">Recent quotes</h2><a href="#/quotes">All quotes</a></div>
        ${
          recent.data.length
            ? quoteTable(recent.data, 'The five latest quotes')
            : emptyView(
                'No quotes yet',
                'Quotes from the API, the widget or the "try it" box of a slice profile appear here.',
                html`<a class="btn" href="#/profiles/material">Try a quote</a>`,
              )
        }
      </section>
      <div class="start-grid">
        ${widgetStart(widgetKey)}
        <section class="panel" aria-labelledby="start-h">
          <div class="panel-head"><h2 id="start-h">Get started with the API</h2><sq-copy .text=${gettingStarted(location.origin)} label="Copy snippet"></sq-copy></div>
          <p>Create a token on <a href="#/tokens">API tokens</a>, put it in <code>SLICEQUOTE_TOKEN</code>, then:</p>
          <pre class="code" tabindex="0" aria-label="Getting-started commands"><code>${gettingStarted(location.origin)}</code></pre>
          <p class="muted small">API base URL: <code>${location.origin}/v2</code> · Full reference: <a href="/docs">/docs</a> · Contract: <a href="/v2/openapi.json">/v2/openapi.json</a></p>
        </section>
      </div>`;
  }
}

/** The widget snippet with the shop's own key; before a key exists, only the way to make one (never a placeholder key). */
function widgetStart(widgetKey: WidgetKey | null) {
  if (!widgetKey)
    return html`<section class="panel" aria-labelledby="widget-start-h" data-testid="overview-widget-start">
      <div class="panel-head"><h2 id="widget-start-h">Add the widget to your shop</h2></div>
      <p>First create a widget key with your shop's address: the snippet to paste into your product page appears here then.</p>
      <a class="btn" href="#/widget-keys">Create a widget key</a>
    </section>`;
  const snippet = embedSnippet(location.origin, widgetKey.key);
  return html`<section class="panel" aria-labelledby="widget-start-h" data-testid="overview-widget-start">
    <div class="panel-head"><h2 id="widget-start-h">Add the widget to your shop</h2><sq-copy .text=${snippet} label="Copy widget snippet"></sq-copy></div>
    <p>Paste this into your product page (key <strong>${widgetKey.name}</strong>; its allowed origins are on <a href="#/widget-keys">Widget keys</a>):</p>
    <pre class="code" tabindex="0" aria-label="Widget embed snippet" data-testid="overview-embed-snippet"><code>${snippet}</code></pre>
    <p class="muted small">Shoppers drop a model and get a price from a real slice; listen for <code>sq-add-to-cart</code> to fill your cart.</p>
  </section>`;
}
customElements.define('sq-overview-page', OverviewPage);
