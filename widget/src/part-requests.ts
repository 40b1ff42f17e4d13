// "Request a quote" of each part (quote-request.ts draws the form): the single part, or a row with `multiple`. Each
// part's form is about the upload and price it was opened for, so a new file or price starts a new form; sending it
// posts the shopper's contact with the part (POST /v2/quote-requests) and tells the page (`sq-quote-request`).

import { toWidgetError } from './errors.ts';
import type { PartFlow } from './part-flow.ts';
import { quoteRequest } from './quote-flow.ts';
import {
  newRequest,
  type RequestHandlers,
  type RequestState,
  readContact,
  requestAbout,
  requestId,
  requestPage,
  requestReason,
} from './quote-request.ts';
import type { WidgetState } from './state.ts';
import type { RequestView } from './view.ts';
import type { WidgetHost } from './widget-host.ts';

export interface PartRequestsHost extends WidgetHost {
  readonly multiple: boolean;
  /** The part's state with the shop's, as its request reads them. */
  stateOf(part: PartFlow): WidgetState;
}

export class PartRequests {
  /** Each part's form: its state, for the part and price it is about. */
  private readonly forms = new WeakMap<PartFlow, RequestState>();

  /** `single`: the one part without `multiple`, whose form's ids are not a row's. */
  constructor(
    private readonly host: PartRequestsHost,
    private readonly single: PartFlow,
  ) {}

  /**
   * Why a part needs a request, with its form's state (a new part or price starts a new form). A row of several parts
   * is offered one where it cannot be priced automatically or the merchant's rule asks for it, as a single part is;
   * no cart taking the rows is said for them all, under Add all to cart (several-parts.ts).
   */
  view(part: PartFlow, s: WidgetState): RequestView | null {
    const reason = requestReason(s);
    if (!reason || (this.host.multiple && reason === 'no_cart')) return null;
    const about = requestAbout(s, reason);
    let state = this.forms.get(part);
    if (state?.about !== about) {
      // No cart took the line: the form is the next step, so it opens at once and takes the focus.
      state = newRequest(about, reason === 'no_cart');
      this.forms.set(part, state);
      if (reason === 'no_cart') this.host.focusAfterRender(`#${this.id('name', part)}`, true);
    }
    return { reason, state };
  }

  /** The form's handlers of a part (the single part, or a row). */
  handlers(part: PartFlow): RequestHandlers {
    return {
      open: () => {
        this.patch(part, { open: true });
        this.host.focusAfterRender(`#${this.id('name', part)}`);
      },
      submit: (e) => {
        e.preventDefault();
        void this.send(part, e.target as HTMLFormElement);
      },
    };
  }

  /** The id of an element of the part's form: a row's are its own (`p7-rfq-name`); the single part's are not. */
  private id(what: string, part: PartFlow): string {
    return requestId(what, part === this.single ? undefined : { idPrefix: `p${part.id}` });
  }

  private patch(part: PartFlow, change: Partial<RequestState>): void {
    const state = this.forms.get(part);
    if (state) this.forms.set(part, { ...state, ...change });
    this.host.changed();
  }

  /** Checks the form as the server does; then sends it, with the part's price unless it has none to send. */
  private async send(part: PartFlow, form: HTMLFormElement): Promise<void> {
    const s = part.state;
    const view = this.view(part, this.host.stateOf(part));
    if (!view || !s.file || !s.selection || view.state.sending) return;
    const { name, email, note, errors, first } = readContact(form);
    if (first) {
      this.patch(part, { errors, failure: null });
      this.host.focusAfterRender(`#${this.id(first, part)}`);
      return;
    }
    this.patch(part, { errors: {}, failure: null, sending: true });
    const quote = view.reason === 'not_priceable' ? null : s.quote;
    try {
      const sent = await this.host.client!.requestQuote({
        file_id: s.file.file_id,
        quote_id: quote?.quote_id ?? null,
        ...(quote ? {} : { choices: quoteRequest(s.selection).choices }),
        quantity: s.selection.quantity,
        reason: view.reason,
        reason_code: view.reason === 'not_priceable' ? (s.error?.code ?? null) : null,
        name,
        email,
        note,
        ...requestPage(),
      });
      this.patch(part, { sending: false, sent: email });
      this.host.focusAfterRender(
        part === this.single ? '[part~=request-sent]' : `#part-${part.id} [part~=request-sent]`,
      );
      this.host.emit('sq-quote-request', {
        request_id: sent.request_id,
        file_id: s.file.file_id,
        quote_id: quote?.quote_id ?? null,
        reason: view.reason,
      });
    } catch (e) {
      const err = toWidgetError(e);
      this.patch(part, { sending: false, failure: err.detail });
      this.host.emit('sq-error', err.detail);
    }
  }
}
