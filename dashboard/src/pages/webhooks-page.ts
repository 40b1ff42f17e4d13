// Webhooks: create one (its signing secret is shown once) and list them with their state.
import { html, nothing } from 'lit';
import { badge, pageHeader } from '../components/page-header.ts';
import { emptyView, formError, renderLoad } from '../components/states.ts';
import { readWebhookFields, refusalHelp, webhookFields, webhookProblem } from '../components/webhook-fields.ts';
import { ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import { href } from '../lib/router.ts';
import type { ApiToken, Page, Webhook } from '../lib/types.ts';
import '../components/secret-once.ts';
import '../components/test-event.ts';

export async function loadTokens(): Promise<ApiToken[]> {
  return (await call(api.GET('/dashboard/api/tokens'))).data;
}

export class WebhooksPage extends AppElement {
  static override properties = { created: { state: true }, busy: { state: true }, error: { state: true } };
  declare created: Webhook | null;
  declare busy: boolean;
  declare error: ApiError | null;
  private hooks = new Loader<Page<Webhook>>(this, () =>
    call(api.GET('/v2/webhooks', { params: { query: { limit: 100 } } })),
  );
  private tokens = new Loader<ApiToken[]>(this, loadTokens);

  constructor() {
    super();
    this.created = null;
    this.busy = false;
    this.error = null;
  }

  private async create(e: SubmitEvent) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const v = readWebhookFields(form);
    const problem = webhookProblem(v);
    if (problem) {
      this.error = new ApiError(400, 'validation_failed', problem[1], { field: problem[0] });
      form.querySelector<HTMLElement>(`#wh-${problem[0]}`)?.focus();
      return;
    }
    this.busy = true;
    this.error = null;
    try {
      const body = { url: v.url, events: v.events, ...(v.token_id ? { token_id: v.token_id } : {}) };
      this.created = await call(api.POST('/v2/webhooks', { body }));
      form.reset();
      await this.hooks.reload();
    } catch (err) {
      this.error = toApiError(err);
    } finally {
      this.busy = false;
    }
  }

  protected override render() {
    const tokens = this.tokens.data ?? [];
    const invalid = this.error?.fields[0]?.field ?? (this.error ? 'url' : null);
    return html`${pageHeader('Webhooks', html`Signed HTTP POSTs to your backend when quotes, files, jobs, the widget or your usage change. See <a href="/docs">the API reference</a> for the bodies and how to verify <code>X-Webhook-Signature</code>.`)}
      <section class="panel" aria-labelledby="new-wh-h">
        <h2 id="new-wh-h">Add a webhook</h2>
        <form class="stack-form" @submit=${this.create} novalidate>
          ${webhookFields('wh', { url: '', events: ['quote.completed', 'quote.failed'], token_id: null }, tokens, invalid)}
          ${formError(this.error)} ${refusalHelp(this.error)}
          <div><button type="submit" class="btn btn-primary" ?disabled=${this.busy}>${this.busy ? 'Adding…' : 'Add webhook'}</button></div>
        </form>
        ${
          this.created?.secret
            ? html`<sq-secret-once heading="Signing secret of the new webhook" .secret=${this.created.secret}
              note="Your receiver checks each request with it: HMAC-SHA256 of the raw body, sent as sha256=<hex> in X-Webhook-Signature."
              @sq-dismiss=${() => (this.created = null)}></sq-secret-once>
            <p><a href=${href(['webhooks', this.created.webhook_id])}>Open the new webhook's deliveries</a></p>`
            : nothing
        }
      </section>
      <section class="panel" aria-labelledby="wh-list-h">
        <h2 id="wh-list-h">Your webhooks</h2>
        ${renderLoad(
          this.hooks.state,
          'webhooks',
          (page) => this.table(page.data, tokens),
          () => this.hooks.reload(),
        )}
      </section>`;
  }

  private table(list: Webhook[], tokens: ApiToken[]) {
    if (!list.length) return emptyView('No webhooks yet', 'Add one above to hear about quotes as they happen.');
    const tokenName = (id: string | null) =>
      id ? (tokens.find((t) => t.token_id === id)?.name ?? id) : 'All requests';
    return html`<div class="table-wrap"><table class="table">
      <caption class="visually-hidden">Webhooks</caption>
      <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Token</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Test</th></tr></thead>
      <tbody>${list.map(
        (w) => html`<tr>
          <td><a href=${href(['webhooks', w.webhook_id])}>${w.url}</a></td>
          <td>${w.events.map((e) => html`<code class="chip">${e}</code> `)}</td>
          <td>${tokenName(w.token_id)}</td>
          <td>${w.active ? badge('Active', 'ok') : badge('Paused', 'warn')}</td>
          <td>${dateTime(w.created_at)}</td>
          <td class="test-cell"><sq-test-event .webhookId=${w.webhook_id} .url=${w.url} ?disabled=${!w.active}></sq-test-event></td>
        </tr>`,
      )}</tbody>
    </table></div>`;
  }
}
customElements.define('sq-webhooks-page', WebhooksPage);
