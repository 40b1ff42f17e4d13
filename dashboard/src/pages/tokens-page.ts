// API tokens: create (shown once, with a copy button), list with last use, revoke.
import { html, nothing } from 'lit';
import { confirmAction } from '../components/confirm.ts';
import { badge, pageHeader } from '../components/page-header.ts';
import { emptyView, formError, renderLoad } from '../components/states.ts';
import { ApiError, api, call, csrfHeader } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import type { ApiToken, CreatedToken } from '../lib/types.ts';
import '../components/secret-once.ts';

export class TokensPage extends AppElement {
  static override properties = {
    created: { state: true },
    busy: { state: true },
    error: { state: true },
    notice: { state: true },
  };
  declare created: CreatedToken | null;
  declare busy: boolean;
  declare error: ApiError | null;
  declare notice: string;
  private tokens = new Loader<ApiToken[]>(this, async () => (await call(api.GET('/dashboard/api/tokens'))).data);

  constructor() {
    super();
    this.created = null;
    this.busy = false;
    this.error = null;
    this.notice = '';
  }

  private async create(e: SubmitEvent) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const name = String(data.get('name') ?? '').trim();
    const days = String(data.get('expires_in_days') ?? '');
    if (!name) {
      this.error = new ApiError(
        400,
        'validation_failed',
        'Give the token a name, for example the system that will use it.',
        { field: 'name' },
      );
      form.querySelector<HTMLInputElement>('#token-name')?.focus();
      return;
    }
    this.busy = true;
    this.error = null;
    try {
      this.created = await call(
        api.POST('/dashboard/api/tokens', {
          params: { header: csrfHeader() },
          body: days ? { name, expires_in_days: Number(days) } : { name },
        }),
      );
      form.reset();
      void this.tokens.reload();
    } catch (err) {
      this.error = toApiError(err);
    } finally {
      this.busy = false;
    }
  }

  private async revoke(t: ApiToken) {
    const ok = await confirmAction({
      title: `Revoke "${t.name}"?`,
      body: 'Requests with this token stop working at once. Webhooks linked to it stop firing. This cannot be undone.',
      confirmLabel: 'Revoke token',
    });
    if (!ok) return;
    try {
      await call(
        api.DELETE('/dashboard/api/tokens/{token_id}', {
          params: { path: { token_id: t.token_id }, header: csrfHeader() },
        }),
      );
      this.notice = `Token "${t.name}" revoked.`;
      await this.tokens.reload();
    } catch (err) {
      this.notice = `Could not revoke "${t.name}": ${toApiError(err).message}`;
    }
  }

  protected override render() {
    return html`${pageHeader('API tokens', html`Tokens authenticate your backend's calls to <code>${location.origin}/v2</code> (<code>Authorization: Bearer …</code>). Keep them secret; never put them in a shop page — use a widget key there.`)}
      <section class="panel" aria-labelledby="new-token-h">
        <h2 id="new-token-h">Create a token</h2>
        <form class="inline-form" @submit=${this.create} novalidate>
          <div class="field">
            <label for="token-name">Name</label>
            <input id="token-name" name="name" maxlength="100" placeholder="e.g. shop backend" aria-invalid=${this.error?.fields[0]?.field === 'name' ? 'true' : 'false'} />
          </div>
          <div class="field">
            <label for="token-expiry">Expires</label>
            <select id="token-expiry" name="expires_in_days">
              <option value="">Never (until revoked)</option>
              <option value="30">In 30 days</option>
              <option value="90">In 90 days</option>
              <option value="365">In a year</option>
            </select>
          </div>
          <button type="submit" class="btn btn-primary" ?disabled=${this.busy}>${this.busy ? 'Creating…' : 'Create token'}</button>
        </form>
        ${formError(this.error)}
        ${
          this.created?.token
            ? html`<sq-secret-once heading="Your new token “${this.created.name}”" .secret=${this.created.token}
              note="Try it: curl -H &quot;Authorization: Bearer <token>&quot; ${location.origin}/v2/user" @sq-dismiss=${() => (this.created = null)}></sq-secret-once>`
            : nothing
        }
      </section>
      <section class="panel" aria-labelledby="tokens-h">
        <h2 id="tokens-h">Your tokens</h2>
        <div role="status">${this.notice ? html`<p class="alert alert-info">${this.notice}</p>` : nothing}</div>
        ${renderLoad(
          this.tokens.state,
          'tokens',
          (list) => this.table(list),
          () => this.tokens.reload(),
        )}
      </section>`;
  }

  private table(list: ApiToken[]) {
    if (!list.length) return emptyView('No tokens yet', 'Create one above to call the API from your backend.');
    return html`<div class="table-wrap"><table class="table">
      <caption class="visually-hidden">API tokens</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${list.map(
        (t) => html`<tr>
          <td>${t.name} <code class="muted small">${t.token_id}</code></td>
          <td>${dateTime(t.created_at)}</td>
          <td>${t.last_used_at ? dateTime(t.last_used_at) : badge('Never used')}</td>
          <td>${t.expires_at ? dateTime(t.expires_at) : 'Never'}</td>
          <td class="actions"><button type="button" class="btn btn-small btn-danger-quiet" aria-label="Revoke token ${t.name}" @click=${() => this.revoke(t)}>Revoke</button></td>
        </tr>`,
      )}</tbody>
    </table></div>`;
  }
}
customElements.define('sq-tokens-page', TokensPage);
