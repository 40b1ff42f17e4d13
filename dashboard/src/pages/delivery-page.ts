// One webhook delivery: the request that was sent (headers and the signed body) and every attempt with its
// status, timing and the start of the answer (docs/webhooks.md, one delivery). Refreshes while pending.
import { html, nothing } from 'lit';
import { badge, pageHeader } from '../components/page-header.ts';
import { emptyView, renderLoad } from '../components/states.ts';
import { api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime, dateTimeSeconds, num } from '../lib/format.ts';
import { Loader } from '../lib/loader.ts';
import { href } from '../lib/router.ts';
import type { DeliveryAttempt, DeliveryDetail } from '../lib/types.ts';
import '../components/copy-button.ts';

const POLL_MS = 1500;

function stateBadge(d: DeliveryDetail) {
  if (d.state === 'delivered') return badge('Delivered', 'ok');
  if (d.state === 'failed') return badge('Failed', 'bad');
  return badge(d.attempts ? 'Retrying' : 'Pending', 'info');
}

/** The signed body is compact JSON; indented here for reading (the copy button copies the exact bytes). */
function readable(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export class DeliveryPage extends AppElement {
  static override properties = { webhookId: {}, deliveryId: {} };
  declare webhookId: string;
  declare deliveryId: string;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private delivery = new Loader<DeliveryDetail>(this, () =>
    call(
      api.GET('/v2/webhooks/{webhook_id}/deliveries/{delivery_id}', {
        params: { path: { webhook_id: this.webhookId, delivery_id: this.deliveryId } },
      }),
    ),
  );

  constructor() {
    super();
    this.webhookId = '';
    this.deliveryId = '';
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    if (this.timer) clearTimeout(this.timer);
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    // The shell reuses this element when the ids in the address change.
    if (
      (changed.has('deliveryId') && changed.get('deliveryId')) ||
      (changed.has('webhookId') && changed.get('webhookId'))
    )
      void this.delivery.reload();
  }

  protected override updated(): void {
    if (this.delivery.data?.state === 'pending' && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.delivery.reload();
      }, POLL_MS);
    }
  }

  protected override render() {
    return html`${pageHeader('Delivery', html`What was sent to your endpoint and what it answered.`, html`<a class="btn" href=${href(['webhooks', this.webhookId])}>Back to the webhook</a>`)}
      ${renderLoad(
        this.delivery.state,
        'the delivery',
        (d) => this.body(d),
        () => this.delivery.reload(),
      )}`;
  }

  private body(d: DeliveryDetail) {
    return html`<section class="panel" aria-labelledby="dlv-sum-h">
        <h2 id="dlv-sum-h">Summary</h2>
        <dl class="props" data-testid="delivery-summary">
          <div><dt>Event</dt><dd><code>${d.event}</code>${d.event === 'ping' ? html` <span class="muted small">(test event)</span>` : nothing}</dd></div>
          <div><dt>State</dt><dd>${stateBadge(d)}</dd></div>
          <div><dt>Attempts</dt><dd>${d.attempts} / ${d.max_attempts}${d.interrupted_attempts ? ` (+${d.interrupted_attempts} interrupted)` : ''}</dd></div>
          <div><dt>Created</dt><dd>${dateTime(d.created_at)}</dd></div>
          <div><dt>Delivered</dt><dd>${d.delivered_at ? dateTime(d.delivered_at) : '—'}</dd></div>
          <div class="wide"><dt>Delivery id</dt><dd><code>${d.delivery_id}</code>${d.resent_from ? html`<br /><span class="muted small">resend of ${d.resent_from}</span>` : nothing}</dd></div>
        </dl>
      </section>
      ${this.attemptsView(d)}
      ${this.requestView(d)}`;
  }

  private attemptsView(d: DeliveryDetail) {
    return html`<section class="panel" aria-labelledby="dlv-att-h">
      <h2 id="dlv-att-h">Attempts</h2>
      ${
        d.attempt_log.length
          ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Attempts (scrolls sideways on small screens)"><table class="table" data-testid="delivery-attempts">
            <caption class="visually-hidden">Attempts, oldest first</caption>
            <thead><tr><th scope="col" class="num">#</th><th scope="col">Sent</th><th scope="col" class="num">Took</th><th scope="col" class="num">Status</th><th scope="col">Outcome</th><th scope="col">Response</th></tr></thead>
            <tbody>${d.attempt_log.map((a) => this.attemptRow(a))}</tbody>
          </table></div>
          <p class="muted small">Responses are kept as text (2 KB at most) and only from public addresses: never from a
            private or local address, and never when the answer declared a binary type.</p>`
          : emptyView(
              d.state === 'pending' ? 'Not sent yet' : 'No recorded attempts',
              d.state === 'pending'
                ? 'The first attempt starts within seconds; this page refreshes itself.'
                : 'This delivery ended without a recorded attempt.',
            )
      }
    </section>`;
  }

  private attemptRow(a: DeliveryAttempt) {
    const ok = a.error === null;
    return html`<tr class=${ok ? '' : 'row-failed'}>
      <td class="num">${a.attempt}</td>
      <td><span title=${a.sent_at}>${dateTimeSeconds(a.sent_at)}</span></td>
      <td class="num">${num(a.duration_ms, 0)} ms</td>
      <td class="num">${a.status_code ?? '—'}</td>
      <td class="error-cell">${ok ? badge('Accepted', 'ok') : a.error}</td>
      <td>${a.response_snippet ? html`<pre class="code snippet">${a.response_snippet}</pre>` : html`<span class="muted small">not kept</span>`}</td>
    </tr>`;
  }

  private requestView(d: DeliveryDetail) {
    const r = d.request;
    return html`<section class="panel" aria-labelledby="dlv-req-h">
      <h2 id="dlv-req-h">Request</h2>
      <p><code>${r.method} ${r.url}</code></p>
      <div class="table-wrap" tabindex="0" role="region" aria-label="Request headers (scrolls sideways on small screens)"><table class="table table-compact" data-testid="delivery-headers">
        <caption class="visually-hidden">Request headers</caption>
        <thead><tr><th scope="col">Header</th><th scope="col">Value</th></tr></thead>
        <tbody>${Object.entries(r.headers).map(([name, value]) => html`<tr><th scope="row"><code>${name}</code></th><td><code class="wrap">${value}</code></td></tr>`)}</tbody>
      </table></div>
      <div class="panel-head"><h3 id="dlv-body-h">Body</h3><sq-copy .text=${r.body} label="Copy the exact body"></sq-copy></div>
      <pre class="code" data-testid="delivery-body" aria-labelledby="dlv-body-h" tabindex="0">${readable(r.body)}</pre>
      <p class="muted small">The body is signed as sent: compact JSON, exactly the bytes the copy button copies (shown
        indented here). Every attempt carries the same body and <code>x-webhook-signature</code>; only
        <code>x-webhook-timestamp</code> changes (the latest attempt's is shown).</p>
    </section>`;
  }
}
customElements.define('sq-delivery-page', DeliveryPage);
