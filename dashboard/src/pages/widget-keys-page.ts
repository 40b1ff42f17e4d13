// Widget keys: publishable keys for the <slice-quote> storefront widget, each limited to the shop
// origins allowed to use it; an embed snippet generator with a live preview of the widget.

import { html, nothing } from 'lit';
import { confirmAction } from '../components/confirm.ts';
import { badge, pageHeader } from '../components/page-header.ts';
import { emptyView, formError, renderLoad } from '../components/states.ts';
import { ApiError, api, call, csrfHeader } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import { loadOffer, type OfferSource, removeOffer } from '../lib/offer.ts';
import { href } from '../lib/router.ts';
import { embedSnippet, WIDGET_SCRIPT, widgetTags } from '../lib/snippet.ts';
import type { WidgetKey } from '../lib/types.ts';
import '../components/copy-button.ts';

/** A key with the source of the offer it quotes from (null when that could not be read). */
type ListedKey = WidgetKey & { offerSource: OfferSource | null };

async function listKeys(): Promise<ListedKey[]> {
  const keys = (await call(api.GET('/dashboard/api/widget-keys'))).data;
  const offers = await Promise.allSettled(
    keys.map((k) => loadOffer({ kind: 'key', id: k.widget_key_id, name: k.name })),
  );
  return keys.map((k, i) => {
    const o = offers[i];
    return { ...k, offerSource: o?.status === 'fulfilled' ? o.value.source : null };
  });
}

/** Splits the textarea into origins and names the first that is not a bare origin (scheme://host[:port]). */
export function parseOrigins(text: string): { origins: string[]; problem: string | null } {
  const origins = text
    .split(/[\s,]+/)
    .map((s) => s.trim().replace(/\/$/, ''))
    .filter(Boolean);
  for (const o of origins) {
    let ok = false;
    try {
      const u = new URL(o);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === o;
    } catch {
      ok = false;
    }
    if (!ok)
      return {
        origins,
        problem: `"${o}" is not an origin: write scheme, host and optional port only, e.g. https://shop.example.com`,
      };
  }
  return {
    origins,
    problem: origins.length ? null : 'Add at least one origin: the address of the shop that embeds the widget.',
  };
}

/**
 * Pages that tried the key from an origin it does not allow: a merchant testing on localhost while
 * 127.0.0.1 is allowed sees "http://localhost:5173 was refused 3 times" here, not only a 403 in a console.
 */
function refusedOrigins(k: WidgetKey) {
  if (!k.refused_origins.length) return nothing;
  return html`<div class="refused-origins" data-testid="refused-origins">
    <p class="small">Recently refused: pages at these origins could not quote. If one is your shop, create a key that allows it (above) and use that key there.</p>
    <ul class="small">${k.refused_origins.map(
      (o) =>
        html`<li><code class="chip">${o.origin}</code> was refused ${o.count === 1 ? 'once' : `${o.count} times`}, last ${dateTime(o.last_refused_at)}</li>`,
    )}</ul>
  </div>`;
}

export class WidgetKeysPage extends AppElement {
  static override properties = {
    busy: { state: true },
    error: { state: true },
    notice: { state: true },
    selected: { state: true },
    widgetAvailable: { state: true },
  };
  declare busy: boolean;
  declare error: ApiError | null;
  declare notice: string;
  declare selected: string;
  declare widgetAvailable: boolean | null;
  private keys = new Loader<ListedKey[]>(this, listKeys);

  constructor() {
    super();
    this.busy = false;
    this.error = null;
    this.notice = '';
    this.selected = '';
    this.widgetAvailable = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // The widget is its own build; the preview only loads it when this server serves it.
    fetch(WIDGET_SCRIPT, { method: 'HEAD' })
      .then((r) => (this.widgetAvailable = r.ok))
      .catch(() => (this.widgetAvailable = false));
  }

  private async create(e: SubmitEvent) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const name = String(data.get('name') ?? '').trim();
    const { origins, problem } = parseOrigins(String(data.get('allowed_origins') ?? ''));
    const fieldProblem: [string, string] | null = !name
      ? ['name', 'Give the key a name, for example the shop it is for.']
      : problem
        ? ['allowed_origins', problem]
        : null;
    if (fieldProblem) {
      this.error = new ApiError(400, 'validation_failed', fieldProblem[1], { field: fieldProblem[0] });
      form.querySelector<HTMLElement>(`#wk-${fieldProblem[0]}`)?.focus();
      return;
    }
    this.busy = true;
    this.error = null;
    try {
      const key = await call(
        api.POST('/dashboard/api/widget-keys', {
          params: { header: csrfHeader() },
          body: { name, allowed_origins: origins },
        }),
      );
      form.reset();
      this.selected = key.widget_key_id;
      this.notice = `Widget key "${key.name}" created. Its embed snippet is below.`;
      await this.keys.reload();
    } catch (err) {
      this.error = toApiError(err);
    } finally {
      this.busy = false;
    }
  }

  private async revoke(k: WidgetKey) {
    const ok = await confirmAction({
      title: `Revoke "${k.name}"?`,
      body: 'Shops embedding the widget with this key stop getting quotes at once. This cannot be undone.',
      confirmLabel: 'Revoke key',
    });
    if (!ok) return;
    try {
      await call(
        api.DELETE('/dashboard/api/widget-keys/{widget_key_id}', {
          params: { path: { widget_key_id: k.widget_key_id }, header: csrfHeader() },
        }),
      );
      this.notice = `Widget key "${k.name}" revoked.`;
      if (this.selected === k.widget_key_id) this.selected = '';
      await this.keys.reload();
    } catch (err) {
      this.notice = `Could not revoke "${k.name}": ${toApiError(err).message}`;
    }
  }

  private async removeOwnOffer(k: WidgetKey) {
    const ok = await confirmAction({
      title: `Remove the own offer of "${k.name}"?`,
      body: 'Widgets using this key then offer the account offer. Quotes already made keep their price.',
      confirmLabel: 'Remove own offer',
    });
    if (!ok) return;
    try {
      await removeOffer({ kind: 'key', id: k.widget_key_id, name: k.name });
      this.notice = `"${k.name}" uses the account offer again.`;
      await this.keys.reload();
    } catch (err) {
      this.notice = `Could not remove the own offer of "${k.name}": ${toApiError(err).message}`;
    }
  }

  protected override render() {
    const invalid = (f: string) => (this.error?.fields[0]?.field === f ? 'true' : 'false');
    const lead = html`Publishable keys for the storefront widget. They are safe in a shop page because they only work
      from the origins you allow. Each key offers your <a href="#/offer">account offer</a> unless you give it its own.`;
    return html`${pageHeader('Widget keys', lead)}
      <section class="panel" aria-labelledby="new-wk-h">
        <h2 id="new-wk-h">Create a widget key</h2>
        <form class="stack-form" @submit=${this.create} novalidate>
          <div class="field">
            <label for="wk-name">Name</label>
            <input id="wk-name" name="name" maxlength="100" placeholder="e.g. main shop" aria-invalid=${invalid('name')} />
          </div>
          <div class="field">
            <label for="wk-allowed_origins">Allowed origins</label>
            <textarea id="wk-allowed_origins" name="allowed_origins" rows="3" aria-describedby="wk-origins-hint" aria-invalid=${invalid('allowed_origins')}
              placeholder="https://shop.example.com"></textarea>
            <p class="hint" id="wk-origins-hint">One per line: the scheme, host and port of each page that embeds the widget (no path).</p>
          </div>
          ${formError(this.error)}
          <div><button type="submit" class="btn btn-primary" ?disabled=${this.busy}>${this.busy ? 'Creating…' : 'Create widget key'}</button></div>
        </form>
      </section>
      <section class="panel" aria-labelledby="wk-list-h">
        <h2 id="wk-list-h">Your widget keys</h2>
        <div role="status">${this.notice ? html`<p class="alert alert-info">${this.notice}</p>` : nothing}</div>
        ${renderLoad(
          this.keys.state,
          'widget keys',
          (list) => this.table(list),
          () => this.keys.reload(),
        )}
      </section>
      ${this.keys.data?.length ? this.snippet(this.keys.data as [ListedKey, ...ListedKey[]]) : nothing}`;
  }

  private offerCell(k: ListedKey) {
    const editLink = href(['widget-keys', k.widget_key_id, 'offer']);
    if (k.offerSource === null) return html`<span class="muted">Could not be read</span>`;
    if (k.offerSource !== 'widget_key') {
      return html`${badge('Uses the account offer')}
        <div class="cell-actions">
          <a class="btn btn-small" href=${editLink} aria-label="Give own offer to ${k.name}">Give own offer</a>
        </div>`;
    }
    return html`${badge('Has its own offer', 'info')}
      <div class="cell-actions">
        <a class="btn btn-small" href=${editLink} aria-label="Edit the own offer of ${k.name}">Edit</a>
        <button type="button" class="btn btn-small btn-danger-quiet" @click=${() => this.removeOwnOffer(k)}
          aria-label="Remove the own offer of ${k.name}">Remove</button>
      </div>`;
  }

  private table(list: ListedKey[]) {
    if (!list.length)
      return emptyView('No widget keys yet', 'Create one above to embed the quoting widget in your shop.');
    return html`<div class="table-wrap"><table class="table">
      <caption class="visually-hidden">Widget keys</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Allowed origins</th><th scope="col">Offer</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${list.map(
        (k) => html`<tr>
          <td>${k.name}</td>
          <td><code>${k.key}</code></td>
          <td>${k.allowed_origins.map((o) => html`<code class="chip">${o}</code> `)}${refusedOrigins(k)}</td>
          <td data-testid="key-offer">${this.offerCell(k)}</td>
          <td>${dateTime(k.created_at)}</td>
          <td class="actions">
            <button type="button" class="btn btn-small" @click=${() => (this.selected = k.widget_key_id)} aria-label="Show the embed snippet of ${k.name}">Embed</button>
            <button type="button" class="btn btn-small btn-danger-quiet" @click=${() => this.revoke(k)} aria-label="Revoke widget key ${k.name}">Revoke</button>
          </td>
        </tr>`,
      )}</tbody>
    </table></div>`;
  }

  private snippet(list: [ListedKey, ...ListedKey[]]) {
    const key = list.find((k) => k.widget_key_id === this.selected) ?? list[0];
    const code = embedSnippet(location.origin, key.key);
    return html`<section class="panel" aria-labelledby="embed-h">
      <div class="panel-head"><h2 id="embed-h">Embed snippet</h2><sq-copy .text=${code} label="Copy snippet"></sq-copy></div>
      <div class="field field-inline">
        <label for="embed-key">Widget key</label>
        <select id="embed-key" @change=${(e: Event) => (this.selected = (e.target as HTMLSelectElement).value)}>
          ${list.map((k) => html`<option value=${k.widget_key_id} ?selected=${k === key}>${k.name}</option>`)}
        </select>
      </div>
      <p>Paste this where the quote box should appear in your shop page:</p>
      <pre class="code" tabindex="0" aria-label="Embed snippet" data-testid="embed-snippet"><code>${code}</code></pre>
      <h3>Live preview</h3>
      ${this.preview(key, widgetTags(location.origin, key.key))}
    </section>`;
  }

  private preview(key: WidgetKey, code: string) {
    if (this.widgetAvailable === null)
      return html`<p class="muted" role="status">Checking whether this server serves the widget…</p>`;
    if (!this.widgetAvailable) {
      return emptyView(
        'Preview unavailable',
        html`This server does not serve <code>${WIDGET_SCRIPT}</code> yet, so the widget cannot be shown here. The snippet above works as soon as it does.`,
      );
    }
    // Without the snippet's cart listener: an inline script, which the dashboard's Content-Security-Policy
    // refuses (a srcdoc frame inherits it), and which a preview has no cart to connect anyway.
    // srcdoc frames share this page's origin. Browsers send no Origin header on same-origin GETs, which
    // the widget-key check needs, so the preview shows the widget's look; quoting is for the allowed shops.
    const doc = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Widget preview</title></head><body style="margin:0;font-family:system-ui,sans-serif">${code}</body></html>`;
    return html`<p class="muted small">How the widget looks in a page. Quotes through it work on the pages of the allowed origins (${key.allowed_origins.join(', ')}); here, on the dashboard's own address, it may refuse to quote.</p>
      <iframe class="widget-preview" title="Preview of the slice-quote widget with key ${key.name}" srcdoc=${doc}></iframe>`;
  }
}
customElements.define('sq-widget-keys-page', WidgetKeysPage);
