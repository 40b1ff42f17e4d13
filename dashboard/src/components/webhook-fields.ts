// The fields shared by webhook creation and editing: URL, events as checkboxes, the token link; and, under a
// refused private address, the operator setting that allows it with the guide that explains it.
import { html, nothing, type TemplateResult } from 'lit';
import webhooksGuide from '../../../docs/webhooks.md?url';
import type { WebhookEvent } from '../../../shared/webhook-events.ts';
import type { ApiError } from '../lib/api.ts';
import { type ApiToken, WEBHOOK_EVENTS } from '../lib/types.ts';

/** What each webhook event means, next to its checkbox. */
export const EVENT_HELP: Record<WebhookEvent, string> = {
  'quote.completed': 'a quote calculation finishes successfully',
  'quote.failed': 'a quote calculation fails for any reason',
  'file.uploaded': 'a model file is uploaded to the account',
  'file.deleted': 'a model file is deleted from storage',
  'job.status_changed': 'an asynchronous job changes state (queued, processing, completed, failed)',
  'widget.added_to_cart': 'a customer adds a model to the cart in the widget',
  'usage.alert': 'usage crosses 80 % or 100 % of the quote or storage allowance, or falls back below 80 %',
  'quote_request.created': 'a shopper asks you to price a part the widget could not sell at once',
  'quote_request.priced': 'you price a quote request and its link to order is made',
};

export interface WebhookFieldValues {
  url: string;
  events: WebhookEvent[];
  token_id: string | null;
}

export function webhookFields(
  prefix: string,
  v: WebhookFieldValues,
  tokens: ApiToken[],
  invalid: string | null,
): TemplateResult {
  return html`<div class="field">
      <label for="${prefix}-url">Receiver URL</label>
      <input id="${prefix}-url" name="url" type="url" .value=${v.url} placeholder="https://shop.example.com/hooks/slicequote" autocomplete="off"
        aria-describedby="${prefix}-url-hint" aria-invalid=${invalid === 'url' ? 'true' : 'false'} />
      <p class="hint" id="${prefix}-url-hint">http or https; it must reach a public address and answer 2xx itself (no redirects). https is recommended.</p>
    </div>
    <fieldset class="field-group" aria-describedby="${prefix}-events-hint" id="${prefix}-events" tabindex="-1">
      <legend>Events</legend>
      <p class="hint" id="${prefix}-events-hint">Choose at least one.</p>
      <div class="check-grid">
        ${WEBHOOK_EVENTS.map(
          (ev) => html`<div class="field-check">
            <input type="checkbox" id="${prefix}-ev-${ev}" name="events" value=${ev} .checked=${v.events.includes(ev)} aria-describedby="${prefix}-ev-${ev}-hint" />
            <label for="${prefix}-ev-${ev}"><code>${ev}</code></label>
            <span class="hint" id="${prefix}-ev-${ev}-hint">Sent when ${EVENT_HELP[ev]}.</span>
          </div>`,
        )}
      </div>
    </fieldset>
    <div class="field">
      <label for="${prefix}-token">Linked API token</label>
      <select id="${prefix}-token" name="token_id" aria-describedby="${prefix}-token-hint">
        <option value="" ?selected=${!v.token_id}>None: fire for every request of the account</option>
        ${tokens.map((t) => html`<option value=${t.token_id} ?selected=${v.token_id === t.token_id}>${t.name}</option>`)}
      </select>
      <p class="hint" id="${prefix}-token-hint">Linked, the webhook fires only for requests made with that token.</p>
    </div>`;
}

/** Reads the shared fields back from a submitted form. */
export function readWebhookFields(form: HTMLFormElement): WebhookFieldValues {
  const data = new FormData(form);
  return {
    url: String(data.get('url') ?? '').trim(),
    // The checkboxes' values are the event names they were drawn from.
    events: data.getAll('events').map(String) as WebhookEvent[],
    token_id: String(data.get('token_id') ?? '') || null,
  };
}

/** Client-side checks before the server's (which also checks the address rules): names the field. */
export function webhookProblem(v: WebhookFieldValues): [field: string, message: string] | null {
  try {
    const u = new URL(v.url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      return ['url', 'The URL must start with http:// or https://.'];
    if (u.username || u.password) return ['url', 'The URL must not contain a user name or password.'];
  } catch {
    return ['url', 'Enter the full receiver URL, e.g. https://shop.example.com/hooks/slicequote.'];
  }
  if (!v.events.length) return ['events', 'Choose at least one event.'];
  return null;
}

/**
 * Under a refusal the server's operator could lift (a private receiver address: the answer names the setting in
 * `details.setting`), where that setting is explained, so the merchant knows what to ask for.
 */
export function refusalHelp(error: ApiError | null): TemplateResult | typeof nothing {
  const setting = error?.details.setting;
  if (typeof setting !== 'string') return nothing;
  return html`<p class="hint" data-testid="webhook-refusal-help">A receiver on your own machine or network needs
    the server's operator to allow its range in <code>${setting}</code>: see
    <a href=${webhooksGuide} target="_blank" rel="noopener">Local development in the webhooks guide
    (docs/webhooks.md)<span class="visually-hidden"> (opens in a new tab)</span></a>.</p>`;
}
