// The quote signing secret (docs/quote-signatures.md): the merchant's backend checks each quote's signature
// with it before charging, so a price changed in a shopper's browser is refused. Hidden until asked for;
// rotating asks first and says what it breaks.
import { html, nothing } from 'lit';
import guideUrl from '../../../docs/quote-signatures.md?url';
import { type ApiError, api, call, csrfHeader } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { toApiError } from '../lib/loader.ts';
import { type ConfirmOptions, confirmAction } from './confirm.ts';
import { formError } from './states.ts';
import './copy-button.ts';

const ROTATE: ConfirmOptions = {
  title: 'Rotate the quote signing secret?',
  body:
    'A new secret replaces this one at once and signs every new quote. Signatures of the quotes made so far stop ' +
    'verifying with it: carts holding those quotes need a new quote (or a check online with ' +
    'GET /v2/quotes/{quote_id}). Put the new secret in your backend right away.',
  confirmLabel: 'Rotate secret',
};

const VERIFY_SNIPPET = `import { createHmac, timingSafeEqual } from 'node:crypto';

const expected = createHmac('sha256', SIGNING_SECRET).update(signature.payload).digest();
const given = Buffer.from(signature.hmac_sha256, 'hex');
if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error('forged quote');
const fields = signature.payload.split(':');
// v3 (lead time and its business days before the expiry); v2 from quotes signed before lead times.
if (fields[0] === 'v2' && fields.length === 11) fields.splice(10, 0, '', '0');
else if (fields[0] !== 'v3' || fields.length !== 13) throw new Error('unknown signature version');
const [, quoteId, fileId, revision, unit, scale, orientation, digest, unitMinor, currency, leadTime, days, expires] =
  fields;
if (Number(expires) * 1000 <= Date.now()) throw new Error('expired quote: quote again');`;

export class SigningSecret extends AppElement {
  static override properties = {
    secret: { state: true },
    busy: { state: true },
    error: { state: true },
    notice: { state: true },
  };
  /** Shown only once asked for; never kept in the page otherwise. */
  declare secret: string | null;
  declare busy: boolean;
  declare error: ApiError | null;
  declare notice: string;

  constructor() {
    super();
    this.secret = null;
    this.busy = false;
    this.error = null;
    this.notice = '';
  }

  private async run(action: () => Promise<{ secret: string }>, notice: string) {
    this.busy = true;
    this.error = null;
    try {
      this.secret = (await action()).secret;
      this.notice = notice;
    } catch (err) {
      this.error = toApiError(err);
    } finally {
      this.busy = false;
    }
  }

  private reveal = () => this.run(() => call(api.GET('/dashboard/api/quote-signing-secret')), '');

  private hide = () => {
    this.secret = null;
    this.notice = '';
  };

  private rotate = async () => {
    if (!(await confirmAction(ROTATE))) return;
    const notice = 'Secret rotated: new quotes are signed with the secret shown. Update your backend now.';
    await this.run(
      () => call(api.POST('/dashboard/api/quote-signing-secret/rotate', { params: { header: csrfHeader() } })),
      notice,
    );
  };

  protected override render() {
    return html`<section class="panel" aria-labelledby="sig-h">
      <h2 id="sig-h" tabindex="-1">Quote signatures</h2>
      <p>Every completed quote carries a signature of its price, currency and expiry. Before charging, your backend
        checks it with this secret, so a price changed in a shopper's browser is refused. Keep the secret on your
        server, like an API token.</p>
      <div class="secret-row">
        <span class="secret-label">Signing secret</span>
        ${
          this.secret
            ? html`<code class="secret-value" data-testid="signing-secret">${this.secret}</code>
              <sq-copy .text=${this.secret} label="Copy secret"></sq-copy>
              <button type="button" class="btn btn-small" @click=${this.hide}>Hide</button>`
            : html`<code class="secret-value muted"><span aria-hidden="true">qss_••••••••••••••••</span><span
                class="visually-hidden">hidden</span></code>
              <button type="button" class="btn btn-small" @click=${this.reveal} ?disabled=${this.busy}>
                Reveal secret</button>`
        }
        <button type="button" class="btn btn-small btn-danger-quiet" @click=${this.rotate} ?disabled=${this.busy}>
          Rotate secret</button>
      </div>
      <div role="status">${this.notice ? html`<p class="alert alert-info">${this.notice}</p>` : nothing}</div>
      ${formError(this.error)}
      <h3>How to verify a quote</h3>
      <ol class="steps">
        <li>Your cart receives the quote's <code>signature</code>: in the widget's <code>sq-add-to-cart</code> event and
          in the <code>widget.added_to_cart</code> webhook.</li>
        <li>Compute HMAC-SHA256 of <code>signature.payload</code> with this secret and compare it with
          <code>signature.hmac_sha256</code> in constant time.</li>
        <li>Then trust only the payload
          (<code>v3:quote_id:file_id:file_revision:unit:scale:orientation:settings_digest:unit_amount_minor:currency:lead_time:business_days:expires_at</code>):
          charge its unit amount (in minor units, e.g. cents) × quantity, and refuse it once expired. The file
          revision, unit, scale and orientation say which size of the part was priced.</li>
      </ol>
      <details><summary>Node.js example</summary>
        <pre class="code" tabindex="0" aria-label="Node.js example"><code>${VERIFY_SNIPPET}</code></pre></details>
      <p class="small">The full guide, with Python, expiry and rotation:
        <a href=${guideUrl} target="_blank" rel="noopener">docs/quote-signatures.md<span class="visually-hidden">
          (opens in a new tab)</span></a>.</p>
    </section>`;
  }
}
customElements.define('sq-signing-secret', SigningSecret);
