// The offer editor's error summary after a save attempt: every problem in words, each a link to its field,
// and the preview panel beside the form.
import { html, nothing, type TemplateResult } from 'lit';
import type { WidgetConfig } from '../../../widget/src/types.ts';
import type { ApiError } from '../lib/api.ts';
import { money } from '../lib/format.ts';
import { type Offer, widgetConfigFor } from '../lib/offer.ts';
import { fieldId, fieldLabel, type OfferDraft } from '../lib/offer-draft.ts';
import { formError } from './states.ts';
import './offer-preview.ts';

export const SUMMARY_ID = 'of-summary';

/** Focuses the control of a field path, or the nearest group that holds it (the URL hash is the router's). */
function jumpTo(e: Event, path: string) {
  e.preventDefault();
  for (let parts = path.split('.'); parts.length; parts = parts.slice(0, -1)) {
    const el = document.getElementById(fieldId(parts.join('.')));
    if (el) {
      el.closest('details')?.setAttribute('open', '');
      el.focus();
      return;
    }
  }
}

export function errorSummary(problems: Map<string, string>, draft: OfferDraft, server: ApiError | null) {
  if (!problems.size && !server) return nothing;
  if (!problems.size) return html`<div id=${SUMMARY_ID} tabindex="-1">${formError(server)}</div>`;
  const n = problems.size;
  const items = [...problems].map(
    ([path, message]) => html`<li>
    <a href="#${fieldId(path)}" @click=${(e: Event) => jumpTo(e, path)}>${fieldLabel(path, draft)} ${message}</a>
  </li>`,
  );
  return html`<div class="alert alert-error error-summary" id=${SUMMARY_ID} tabindex="-1" role="alert">
    <p><strong>${n === 1 ? 'One field needs' : `${n} fields need`} attention before
      saving${server ? ' (the server refused the offer)' : ''}:</strong></p>
    <ul>${items}</ul>
  </div>`;
}

/** The widget as shoppers will see it with this offer, and the terms the widget does not show. */
export function previewPanel(
  shop: WidgetConfig,
  offer: Offer | null,
  layerHeightOf: (q: Offer['qualities'][number]) => number,
  current: boolean,
) {
  const config = offer ? widgetConfigFor(shop, offer, layerHeightOf) : null;
  const floor = (v: number | null, what: string): TemplateResult | typeof nothing =>
    v === null ? nothing : html`<li>${what}: ${money(v, shop.currency)}</li>`;
  return html`<aside class="offer-preview" aria-labelledby="of-preview-h">
    <h2 id="of-preview-h">What shoppers see</h2>
    <p class="muted small">The widget with this offer, unsaved changes included.
      ${current ? '' : html`<strong>It shows the last valid version</strong> until the problems are fixed.`}</p>
    <sq-offer-preview .config=${config}></sq-offer-preview>
    ${
      offer
        ? html`<ul class="small muted preview-terms">
      <li>Quantity per line: ${offer.quantity.min} to ${offer.quantity.max}</li>
      ${floor(offer.minimum_price, 'Minimum price per part')}
      ${floor(offer.minimum_line_price, 'Minimum price per line')}
    </ul>`
        : nothing
    }
  </aside>`;
}
