// Shows a secret (API token, webhook signing secret) that the server returns only once. Focus moves here
// so keyboard and screen-reader users land on it, and the warning says it cannot be shown again.
import { html } from 'lit';
import { AppElement } from '../lib/element.ts';
import './copy-button.ts';
import { emit } from '../lib/events.ts';

export class SecretOnce extends AppElement {
  static override properties = { heading: {}, secret: {}, note: {} };
  declare heading: string;
  declare secret: string;
  declare note: string;

  constructor() {
    super();
    this.heading = 'Copy your secret now';
    this.secret = '';
    this.note = '';
  }

  protected override firstUpdated(): void {
    this.querySelector<HTMLElement>('.secret-heading')?.focus();
  }

  private dismiss() {
    emit(this, 'sq-dismiss', null);
  }

  protected override render() {
    return html`<section class="secret-once" aria-labelledby="secret-heading">
      <h3 class="secret-heading" id="secret-heading" tabindex="-1">${this.heading}</h3>
      <p><strong>It is shown only this once.</strong> Store it somewhere safe (a password manager or your server's
        environment); if you lose it, create a new one. ${this.note}</p>
      <div class="secret-row">
        <code class="secret-value" data-testid="secret-value">${this.secret}</code>
        <sq-copy .text=${this.secret} label="Copy"></sq-copy>
      </div>
      <button type="button" class="btn btn-quiet" @click=${this.dismiss}>I have stored it</button>
    </section>`;
  }
}
customElements.define('sq-secret-once', SecretOnce);
