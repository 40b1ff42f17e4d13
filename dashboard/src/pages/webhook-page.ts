// One webhook: delivery statistics, the active switch, edit, secret rotation, delete, and the delivery
// log with failed deliveries standing out and a resend button. Refreshes itself while deliveries are pending.
import { html, nothing } from 'lit';
import { confirmAction } from '../components/confirm.ts';
import { badge, pageHeader } from '../components/page-header.ts';
import { pager } from '../components/pager.ts';
import { emptyView, formError, renderLoad } from '../components/states.ts';
import { readWebhookFields, refusalHelp, webhookFields, webhookProblem } from '../components/webhook-fields.ts';
import { ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime, num } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import { href, navigate } from '../lib/router.ts';
import type { ApiToken, Delivery, DeliveryState, Page, Webhook, WebhookStats, WebhookUpdate } from '../lib/types.ts';
import { loadTokens } from './webhooks-page.ts';
import '../components/secret-once.ts';
import '../components/test-event.ts';

type Details = Webhook & { stats: WebhookStats };
const POLL_MS = 1500;

function stateBadge(d: Delivery) {
  if (d.state === 'delivered') return badge('Delivered', 'ok');
  if (d.state === 'failed') return badge('Failed', 'bad');
  return badge(d.attempts ? 'Retrying' : 'Pending', 'info');
}

export class WebhookPage extends AppElement {
  static override properties = {
    webhookId: {},
    page: { state: true },
    filter: { state: true },
    editing: { state: true },
    secret: { state: true },
    error: { state: true },
    notice: { state: true },
    busy: { state: true },
  };
  declare webhookId: string;
  declare page: number;
  declare filter: DeliveryState | '';
  declare editing: boolean;
  declare secret: string;
  declare error: ApiError | null;
  declare notice: string;
  declare busy: boolean;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private path = () => ({ webhook_id: this.webhookId });
  private hook = new Loader<Details>(this, () =>
    call(api.GET('/v2/webhooks/{webhook_id}', { params: { path: this.path() } })),
  );
  private deliveries = new Loader<Page<Delivery>>(this, () =>
    call(
      api.GET('/v2/webhooks/{webhook_id}/deliveries', {
        params: { path: this.path(), query: { page: this.page, limit: 20, state: this.filter || undefined } },
      }),
    ),
  );
  private tokens = new Loader<ApiToken[]>(this, loadTokens);

  constructor() {
    super();
    this.webhookId = '';
    this.page = 1;
    this.filter = '';
    this.editing = false;
    this.secret = '';
    this.error = null;
    this.notice = '';
    this.busy = false;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    if (this.timer) clearTimeout(this.timer);
  }

  protected override updated(): void {
    // Poll while something is in flight, so failures and retries show up without a manual refresh.
    const pending = (this.hook.data?.stats.pending ?? 0) > 0;
    if (pending && !this.timer) this.timer = setTimeout(() => void this.refresh(), POLL_MS);
  }

  private async refresh() {
    this.timer = null;
    await Promise.all([this.hook.reload(), this.deliveries.reload()]);
  }

  private async change(body: WebhookUpdate, done: string) {
    this.busy = true;
    this.error = null;
    try {
      const updated = await call(api.PUT('/v2/webhooks/{webhook_id}', { params: { path: this.path() }, body }));
      if (updated.secret) this.secret = updated.secret;
      this.notice = done;
      this.editing = false;
      await this.hook.reload();
    } catch (err) {
      this.error = toApiError(err);
    } finally {
      this.busy = false;
    }
  }

  private save(e: SubmitEvent) {
    e.preventDefault();
    const v = readWebhookFields(e.target as HTMLFormElement);
    const problem = webhookProblem(v);
    if (problem) {
      this.error = new ApiError(400, 'validation_failed', problem[1], { field: problem[0] });
      return;
    }
    void this.change({ url: v.url, events: v.events, token_id: v.token_id }, 'Webhook saved.');
  }

  private async rotate() {
    const ok = await confirmAction({
      title: 'Replace the signing secret?',
      body: 'New deliveries are signed with the new secret at once; update your receiver first or verify both for a while.',
      confirmLabel: 'Replace secret',
    });
    if (ok) await this.change({ rotate_secret: true }, 'Signing secret replaced.');
  }

  private async deleteWebhook() {
    const ok = await confirmAction({
      title: 'Delete this webhook?',
      body: 'It stops at once and its delivery log is deleted with it. This cannot be undone.',
      confirmLabel: 'Delete webhook',
    });
    if (!ok) return;
    try {
      await call(api.DELETE('/v2/webhooks/{webhook_id}', { params: { path: this.path() } }));
      navigate(['webhooks']);
    } catch (err) {
      this.error = toApiError(err);
    }
  }

  private async resend(d: Delivery) {
    try {
      const fresh = await call(
        api.POST('/v2/webhooks/{webhook_id}/deliveries/{delivery_id}/resend', {
          params: { path: { ...this.path(), delivery_id: d.delivery_id } },
        }),
      );
      this.notice = `Resent ${d.event} as a new delivery (${fresh.delivery_id}).`;
      this.page = 1;
      await this.refresh();
    } catch (err) {
      this.notice = `Could not resend: ${toApiError(err).message}`;
    }
  }

  private testSent = () => {
    this.page = 1;
    void this.refresh();
  };

  private setFilter(e: Event) {
    this.filter = (e.target as HTMLSelectElement).value as DeliveryState | '';
    this.page = 1;
    void this.deliveries.reload();
  }

  private goPage(p: number) {
    this.page = p;
    void this.deliveries.reload();
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    // The shell reuses this element when the id in the address changes.
    if (changed.has('webhookId') && changed.get('webhookId')) void this.refresh();
  }

  protected override render() {
    const w = this.hook.data;
    return html`${pageHeader('Webhook', w ? html`<code>${w.url}</code>` : 'Delivery statistics, settings and the delivery log.', html`<a class="btn" href="#/webhooks">All webhooks</a>`)}
      ${renderLoad(
        this.hook.state,
        'the webhook',
        (d) => this.body(d),
        () => this.hook.reload(),
      )}`;
  }

  private body(w: Details) {
    return html`<div role="status">${this.notice ? html`<p class="alert alert-info">${this.notice}</p>` : nothing}</div>
      ${this.secret ? html`<sq-secret-once heading="New signing secret" .secret=${this.secret} @sq-dismiss=${() => (this.secret = '')}></sq-secret-once>` : nothing}
      ${formError(this.error)} ${refusalHelp(this.error)}
      ${this.statsView(w)}
      ${this.settingsView(w)}
      ${this.deliveriesView(w)}`;
  }

  private statsView(w: Details) {
    const s = w.stats;
    const stat = (label: string, value: string, tone = '') =>
      html`<div class="stat ${tone}"><dt>${label}</dt><dd>${value}</dd></div>`;
    return html`<section class="panel" aria-labelledby="stats-h">
      <div class="panel-head"><h2 id="stats-h">Delivery statistics</h2>
        <button type="button" class="btn btn-small" @click=${() => this.refresh()}>Refresh</button></div>
      <dl class="stat-row" data-testid="webhook-stats">
        ${stat('Total', num(s.total, 0))}${stat('Delivered', num(s.delivered, 0))}
        ${stat('Failed', num(s.failed, 0), s.failed ? 'stat-bad' : '')}${stat('Pending', num(s.pending, 0))}
        ${stat('Success rate', s.success_rate === null ? '—' : `${num(s.success_rate * 100, 1)} %`)}
        ${stat('Last delivered', dateTime(s.last_delivery_at))}
      </dl>
    </section>`;
  }

  private settingsView(w: Details) {
    const tokens = this.tokens.data ?? [];
    const tokenName = w.token_id
      ? (tokens.find((t) => t.token_id === w.token_id)?.name ?? w.token_id)
      : 'None (every request)';
    return html`<section class="panel" aria-labelledby="settings-h">
      <div class="panel-head"><h2 id="settings-h">Settings</h2>
        <div class="switch-row">
          <button type="button" role="switch" class="switch" aria-checked=${w.active ? 'true' : 'false'} id="wh-active" ?disabled=${this.busy}
            @click=${() => this.change({ active: !w.active }, w.active ? 'Webhook paused: no new deliveries until you turn it back on.' : 'Webhook active again.')}>
            <span class="switch-knob" aria-hidden="true"></span></button>
          <label for="wh-active">${w.active ? 'Active' : 'Paused'}</label>
        </div></div>
      ${
        this.editing
          ? html`<form class="stack-form" @submit=${this.save} novalidate>
            ${webhookFields('whe', w, tokens, this.error?.fields[0]?.field ?? null)}
            <div class="form-actions"><button type="submit" class="btn btn-primary" ?disabled=${this.busy}>Save webhook</button>
              <button type="button" class="btn" @click=${() => (this.editing = false)}>Cancel</button></div>
          </form>`
          : html`<dl class="props">
            <div><dt>URL</dt><dd><code>${w.url}</code></dd></div>
            <div><dt>Events</dt><dd>${w.events.map((e) => html`<code class="chip">${e}</code> `)}</dd></div>
            <div><dt>Linked token</dt><dd>${tokenName}</dd></div>
            <div><dt>Created</dt><dd>${dateTime(w.created_at)}</dd></div>
          </dl>
          <div class="form-actions">
            <sq-test-event .webhookId=${w.webhook_id} ?disabled=${!w.active} @sq-test-sent=${this.testSent} @sq-test-done=${() => this.refresh()}></sq-test-event>
            <button type="button" class="btn" @click=${() => (this.editing = true)}>Edit</button>
            <button type="button" class="btn" @click=${this.rotate}>Replace signing secret</button>
            <button type="button" class="btn btn-danger-quiet" @click=${this.deleteWebhook}>Delete webhook</button>
          </div>`
      }
    </section>`;
  }

  private deliveriesView(w: Details) {
    return html`<section class="panel" aria-labelledby="dlv-h">
      <div class="panel-head"><h2 id="dlv-h">Deliveries</h2>
        <div class="field field-inline"><label for="dlv-filter">Show</label>
          <select id="dlv-filter" @change=${this.setFilter}>
            <option value="">All</option><option value="failed">Failed</option><option value="pending">Pending</option><option value="delivered">Delivered</option>
          </select></div></div>
      ${renderLoad(
        this.deliveries.state,
        'deliveries',
        (p) => this.deliveryTable(p, w),
        () => this.deliveries.reload(),
      )}
    </section>`;
  }

  private deliveryTable(p: Page<Delivery>, w: Details) {
    if (!p.data.length) {
      return emptyView(
        this.filter ? `No ${this.filter} deliveries` : 'No deliveries yet',
        `Deliveries appear here when one of the subscribed events happens${w.active ? '' : ' and the webhook is active'}.`,
      );
    }
    return html`<div class="table-wrap"><table class="table" data-testid="deliveries">
        <caption class="visually-hidden">Deliveries, newest first</caption>
        <thead><tr><th scope="col">Event</th><th scope="col">State</th><th scope="col" class="num">Attempts</th><th scope="col" class="num">Last status</th><th scope="col">Error</th><th scope="col">Time</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${p.data.map(
          (d) => html`<tr class=${d.state === 'failed' ? 'row-failed' : ''} data-state=${d.state}>
            <td><a href=${href(['webhooks', w.webhook_id, 'deliveries', d.delivery_id])} aria-label="Details of ${d.event} delivery ${d.delivery_id}"><code>${d.event}</code></a>${d.event === 'ping' ? html` <span class="muted small">test</span>` : nothing}${d.resent_from ? html`<br /><span class="muted small">resend of ${d.resent_from}</span>` : nothing}</td>
            <td>${stateBadge(d)}</td>
            <td class="num">${d.attempts} / ${d.max_attempts}</td>
            <td class="num">${d.last_status_code ?? '—'}</td>
            <td class="error-cell">${d.last_error ?? ''}</td>
            <td><span title="Created ${d.created_at}">${dateTime(d.last_attempt_at ?? d.created_at)}</span></td>
            <td class="actions"><button type="button" class="btn btn-small" ?disabled=${!w.active} @click=${() => this.resend(d)}
              aria-label="Resend ${d.event} delivery ${d.delivery_id}" title=${w.active ? 'Send this event again as a new delivery' : 'Turn the webhook on to resend'}>Resend</button></td>
          </tr>`,
        )}</tbody>
      </table></div>
      ${pager('Delivery pages', p.page, p.limit, p.total, p.has_more, (n) => this.goPage(n))}`;
  }
}
customElements.define('sq-webhook-page', WebhookPage);
