// "Send test event" for one webhook: POSTs a ping (docs/webhooks.md, ping), then follows that delivery until its
// first attempt has an outcome and says what the receiver answered, with a link to the full delivery.
import { html, nothing } from 'lit';
import { api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { emit } from '../lib/events.ts';
import { num } from '../lib/format.ts';
import { toApiError } from '../lib/loader.ts';
import { href } from '../lib/router.ts';
import type { DeliveryDetail } from '../lib/types.ts';

const POLL_MS = 700;
/** A receiver gets at most the delivery timeout (10 s by default) per attempt; stop asking well after that. */
const GIVE_UP_MS = 45_000;

type Outcome = { tone: 'ok' | 'bad' | 'info'; text: string; deliveryId?: string };

/** What the first recorded attempt of a test delivery tells the merchant. */
export function testOutcome(d: DeliveryDetail): Outcome | null {
  const first = d.attempt_log[0];
  if (!first) return null;
  const took = `${num(first.duration_ms, 0)} ms`;
  if (d.state === 'delivered' && first.status_code !== null && first.status_code < 300) {
    return {
      tone: 'ok',
      text: `Delivered: your endpoint answered ${first.status_code} in ${took}.`,
      deliveryId: d.delivery_id,
    };
  }
  const next =
    d.state === 'pending'
      ? ` Retrying: up to ${d.max_attempts} attempts in all.`
      : d.state === 'failed'
        ? ` No attempt succeeded (${d.attempts} of ${d.max_attempts}).`
        : ` Delivered on attempt ${d.attempts}.`;
  return {
    tone: 'bad',
    text: `Not delivered: ${first.error ?? 'no answer'} (after ${took}).${next}`,
    deliveryId: d.delivery_id,
  };
}

export class TestEventButton extends AppElement {
  static override properties = {
    webhookId: {},
    url: {},
    disabled: { type: Boolean },
    outcome: { state: true },
    busy: { state: true },
  };
  declare webhookId: string;
  /** The receiver URL, named in the button's accessible name where several buttons share a page. */
  declare url: string;
  declare disabled: boolean;
  declare outcome: Outcome | null;
  declare busy: boolean;
  private stopped = false;

  constructor() {
    super();
    this.webhookId = '';
    this.url = '';
    this.disabled = false;
    this.outcome = null;
    this.busy = false;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopped = true;
  }

  private async send() {
    this.busy = true;
    this.outcome = { tone: 'info', text: 'Sending a test event…' };
    const webhook_id = this.webhookId;
    try {
      const created = await call(api.POST('/v2/webhooks/{webhook_id}/ping', { params: { path: { webhook_id } } }));
      emit(this, 'sq-test-sent', created);
      const path = { webhook_id, delivery_id: created.delivery_id };
      const until = Date.now() + GIVE_UP_MS;
      while (!this.stopped && Date.now() < until) {
        const outcome = testOutcome(
          await call(api.GET('/v2/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path } })),
        );
        if (outcome) {
          this.outcome = outcome;
          return;
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      this.outcome = {
        tone: 'info',
        text: 'Still waiting for the first attempt; see the delivery log.',
        deliveryId: created.delivery_id,
      };
    } catch (err) {
      this.outcome = { tone: 'bad', text: `Could not send a test event: ${toApiError(err).message}` };
    } finally {
      this.busy = false;
      emit(this, 'sq-test-done', null);
    }
  }

  protected override render() {
    const o = this.outcome;
    const link = o?.deliveryId
      ? html` <a href=${href(['webhooks', this.webhookId, 'deliveries', o.deliveryId])}>Details</a>`
      : nothing;
    return html`<button type="button" class="btn btn-small" ?disabled=${this.disabled || this.busy} @click=${this.send}
        aria-label=${this.url ? `Send test event to ${this.url}` : 'Send test event'}
        title=${this.disabled ? 'Turn the webhook on to send a test event' : 'Send a signed ping event to this URL now'}>Send test event</button>
      <span class="test-result ${o ? `test-${o.tone}` : ''}" role="status" aria-live="polite" data-testid="test-event-result">${o ? html`${o.text}${link}` : nothing}</span>`;
  }
}
customElements.define('sq-test-event', TestEventButton);
