// A copy-to-clipboard button that says "Copied" to everyone (aria-live), with a fallback for browsers
// that refuse the async clipboard API.
import { html } from 'lit';
import { AppElement } from '../lib/element.ts';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export class CopyButton extends AppElement {
  static override properties = { text: {}, label: {}, result: { state: true } };
  declare text: string;
  declare label: string;
  declare result: '' | 'copied' | 'failed';

  constructor() {
    super();
    this.text = '';
    this.label = 'Copy';
    this.result = '';
  }

  private async copy() {
    this.result = (await copyText(this.text)) ? 'copied' : 'failed';
    setTimeout(() => (this.result = ''), 2500);
  }

  protected override render() {
    return html`<button type="button" class="btn btn-small" @click=${this.copy}>${this.label}</button>
      <span class="copy-result" role="status" aria-live="polite">${this.result === 'copied' ? 'Copied' : this.result === 'failed' ? 'Copy failed: select the text and copy it' : ''}</span>`;
  }
}
customElements.define('sq-copy', CopyButton);
