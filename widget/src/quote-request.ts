// "Request a quote" (docs/widget.md): where a part cannot be sold at once — no cart on the page took it, it has no
// automatic price, or the shop's rule (`request_quote_above`) asks for its own price — the shopper leaves a name, an
// e-mail and a note, and the shop sends them a link to order it (POST /v2/quote-requests). Never a dead end.
import { html, nothing, type TemplateResult } from 'lit';
import { requestQuoteRule } from '../../shared/offer.ts';
import { lineTotal } from './selection.ts';
import { shopperMessage } from './shopper-messages.ts';
import type { WidgetState } from './state.ts';
import type { ErrorDetail } from './types.ts';

export type RequestReason = 'no_cart' | 'not_priceable' | 'merchant_rule';

/** Codes of a part that reached the server but has no automatic price: the shop can still price it by hand. */
export const NOT_PRICEABLE = new Set([
  'slice_failed',
  'first_layer_empty',
  'settings_conflict',
  'quote_failed',
  'slice_timeout',
  'quote_timeout',
  'price_out_of_range',
  'model_too_complex',
  'exceeds_build_volume',
  'feature_too_small',
  'part_too_small',
  'multi_material',
  'zero_price',
  'slicer_budget_spent',
]);

/** The form's bounds, as the server's (server/quote-requests/limits.ts). */
export const CONTACT_LIMITS = { name: 100, email: 254, note: 2000 };
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

export type ContactField = 'name' | 'email' | 'note';

/** The form of one part: which part it is about (`about`), and how far it got. */
export interface RequestState {
  /** The part and price it was opened for: a new file or price closes it. */
  about: string;
  open: boolean;
  sending: boolean;
  /** Sent: the address the shop will write to. */
  sent: string | null;
  errors: Partial<Record<ContactField, string>>;
  failure: ErrorDetail | null;
}

export interface RequestHandlers {
  open(): void;
  submit(e: SubmitEvent): void;
}

/** Why the part shown needs a request, if it does. */
export function requestReason(s: WidgetState): RequestReason | null {
  if (!s.file) return null;
  if (s.added && s.reserved) return 'no_cart';
  if (s.error?.stage === 'quote' && NOT_PRICEABLE.has(s.error.code)) return 'not_priceable';
  return aboveRule(s) ? 'merchant_rule' : null;
}

/**
 * Whether the merchant's rule (`request_quote_above`: hours per part, or an amount per line at the quantity chosen)
 * sends this priced part to Request a quote instead of the cart: a single part, or a row of several.
 */
export function aboveRule(s: Pick<WidgetState, 'error' | 'quote' | 'quoting' | 'selection' | 'config'>): boolean {
  if (s.error || !s.quote || s.quoting !== null || !s.selection || !s.config) return false;
  const rule = requestQuoteRule(s.config.request_quote_above, {
    print_seconds: s.quote.estimated_time_seconds,
    total_price: lineTotal(s.quote, s.selection.quantity, s.config),
    rate: s.quote.price_breakdown?.exchange_rate?.rate ?? 1,
  });
  return rule !== null;
}

/** What the form is about: the upload, its price, and why. */
export const requestAbout = (s: WidgetState, reason: RequestReason) =>
  `${reason}|${s.file?.file_id}|${s.quote?.quote_id ?? ''}|${s.error?.code ?? ''}`;

export const newRequest = (about: string, open: boolean): RequestState => ({
  about,
  open,
  sending: false,
  sent: null,
  errors: {},
  failure: null,
});

/** The form's fields checked as the server checks them; each problem in words. */
export function contactProblems(name: string, email: string, note: string): Partial<Record<ContactField, string>> {
  const errors: Partial<Record<ContactField, string>> = {};
  if (!name.trim()) errors.name = 'Please enter your name.';
  else if (name.length > CONTACT_LIMITS.name)
    errors.name = `Please shorten your name to ${CONTACT_LIMITS.name} characters.`;
  if (!EMAIL.test(email.trim()) || email.trim().length > CONTACT_LIMITS.email)
    errors.email = 'Please enter an e-mail address like name@example.com.';
  if (note.length > CONTACT_LIMITS.note) errors.note = `Please shorten your note to ${CONTACT_LIMITS.note} characters.`;
  return errors;
}

/** The contact a form holds, trimmed, with what is wrong with it as typed and the first field to mend. */
export interface Contact {
  name: string;
  email: string;
  note: string;
  errors: Partial<Record<ContactField, string>>;
  first: ContactField | undefined;
}

export function readContact(form: HTMLFormElement): Contact {
  const data = new FormData(form);
  const [name, email, note] = (['name', 'email', 'note'] as const).map((f) => String(data.get(f) ?? ''));
  const errors = contactProblems(name!, email!, note!);
  const first = (['name', 'email', 'note'] as ContactField[]).find((f) => errors[f]);
  return { name: name!.trim(), email: email!.trim(), note: note!.trim(), errors, first };
}

/** The page the request was sent from, for the shop; none when the server would refuse its address. */
export const requestPage = (): { page?: string } =>
  location.href.length <= 2000 && /^https?:/.test(location.href) ? { page: location.href } : {};

const WHY: Record<RequestReason, string> = {
  no_cart:
    'No cart on this page took your part. Leave your name and e-mail, and the shop will send you a link to order it.',
  not_priceable:
    'The shop can still price this part by hand. Leave your name and e-mail, and they will send you a link to order it.',
  merchant_rule:
    'The shop prices parts like this one itself. Leave your name and e-mail, and they will send you a link to order it.',
};

/** The id of a form's element: `rfq-name` for the single part, `p7-rfq-name` in the row of part 7. */
export const requestId = (what: string, row?: { idPrefix: string }) => `${row ? `${row.idPrefix}-` : ''}rfq-${what}`;

/** With several parts (`parts` > 1, the lines "Add all to cart" recorded): the same words, for all of them. */
const WHY_SEVERAL =
  'No cart on this page took your parts. Leave your name and e-mail, and the shop will send you a link to order each of them.';

/**
 * The "Request a quote" button, the form, or the confirmation. In a row of several parts (`row`) its ids are the
 * row's own and its controls name the part for screen readers ("Request a quote for part 2: bracket.stl"); for the
 * parts no cart took (`row.parts`, their count), one form asks for them all.
 */
export function renderRequest(
  reason: RequestReason,
  r: RequestState,
  h: RequestHandlers,
  row?: { idPrefix: string; name: string; parts?: number },
): TemplateResult {
  const id = (what: string) => requestId(what, row);
  const about = row ? html`<span class="visually-hidden"> for ${row.name}</span>` : nothing;
  const several = (row?.parts ?? 1) > 1;
  if (r.sent)
    return html`<p class="added" part="request-sent" role="status" tabindex="-1">
      Request sent. The shop will e-mail ${several ? 'links to order your parts' : 'a link to order your part'} to ${r.sent}.
    </p>`;
  if (!r.open)
    return html`<div class="rfq-offer" part="request-offer">
      <button type="button" class="primary add" part="button request-button" @click=${h.open}>Request a quote${about}</button>
      ${reason === 'merchant_rule' ? html`<p class="hint add-note">${WHY.merchant_rule}</p>` : nothing}
    </div>`;
  const field = (name: ContactField, label: string, control: TemplateResult) => html`
    <div class="field" part="field">
      <label for=${id(name)} part="label">${label}</label>
      ${control}
      <div id=${id(`${name}-help`)} aria-live="polite">
        ${r.errors[name] ? html`<p class="field-error" part="field-error">${r.errors[name]}</p>` : nothing}
      </div>
    </div>`;
  const invalid = (name: ContactField) => (r.errors[name] ? 'true' : 'false');
  return html`<form class="rfq" part="request-form" novalidate aria-labelledby=${id('title')} aria-describedby=${id('why')}
      @submit=${h.submit}>
    <p class="rfq-title" id=${id('title')}><strong>Request a quote</strong>${about}</p>
    <p class="hint" id=${id('why')}>${several && reason === 'no_cart' ? WHY_SEVERAL : WHY[reason]}</p>
    ${field(
      'name',
      'Your name',
      html`<input id=${id('name')} name="name" type="text" autocomplete="name" maxlength=${CONTACT_LIMITS.name} required
        aria-invalid=${invalid('name')} aria-describedby=${id('name-help')} part="input" />`,
    )}
    ${field(
      'email',
      'E-mail',
      html`<input id=${id('email')} name="email" type="email" autocomplete="email" inputmode="email"
        maxlength=${CONTACT_LIMITS.email} required aria-invalid=${invalid('email')} aria-describedby=${id('email-help')}
        part="input" />`,
    )}
    ${field(
      'note',
      'Note for the shop (optional)',
      html`<textarea id=${id('note')} name="note" rows="3" maxlength=${CONTACT_LIMITS.note}
        aria-invalid=${invalid('note')} aria-describedby=${id('note-help')} part="input textarea"></textarea>`,
    )}
    <button type="submit" class="primary add" part="button send-request-button"
      aria-disabled=${r.sending ? 'true' : 'false'}>${r.sending ? 'Sending…' : 'Send request'}${about}</button>
    ${
      r.failure
        ? html`<div class="error" part="error request-error" role="alert" data-code=${r.failure.code}>
          <p>${shopperMessage(r.failure.code, r.failure.retryable)}</p>
        </div>`
        : nothing
    }
  </form>`;
}
