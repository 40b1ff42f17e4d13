// "Request a quote" for lines no cart on the page took, beyond the single part's (quote-request.ts): the rows that
// "Add all to cart" recorded with `multiple`, one request each, sent from one form; and a kept quote ordered from
// its link, requested by the link (any browser holding it may: the part may be another browser's upload). Without
// it those shoppers read "reserved — the shop will contact you" while the shop has no way to reach them.
import type { QuoteRequestBody } from './api.ts';
import { toWidgetError } from './errors.ts';
import {
  type ContactField,
  newRequest,
  type RequestHandlers,
  type RequestState,
  readContact,
  requestId,
  requestPage,
} from './quote-request.ts';
import type { WidgetHost } from './widget-host.ts';

/** One line the request is about: what the server is told (an upload and its quote, or a kept link). */
export interface NoCartLine {
  body: Pick<QuoteRequestBody, 'file_id' | 'quote_id' | 'quantity' | 'link'>;
  /** For `sq-quote-request`. */
  file_id: string;
  quote_id: string | null;
}

/** What the form's submission did: a field to mend, all sent, or nothing more to do now (a failure is shown). */
type Submitted = ContactField | 'sent' | null;

export class NoCartRequest {
  /** The form's state; null when no lines wait for a request. */
  state: RequestState | null = null;
  private lines: NoCartLine[] = [];
  /** Lines already sent: after a failure part-way, sending again sends only the others. */
  private done = 0;

  /** `idPrefix`: the form's ids are its own beside a row's forms (`all`, under Add all to cart). */
  constructor(
    private readonly host: WidgetHost,
    private readonly idPrefix?: string,
  ) {}

  /** How many parts the request is about. */
  get count(): number {
    return this.lines.length;
  }

  /**
   * Opens the form for `lines` (a new set of lines starts a new form, open at once); it comes into view with the focus
   * on its first field.
   */
  open(lines: NoCartLine[]): void {
    this.lines = lines;
    this.done = 0;
    this.state = newRequest(lines.map((l) => l.body.link ?? l.body.quote_id ?? l.file_id).join('|'), true);
    this.host.changed();
    this.host.focusAfterRender(`#${this.id('name')}`, true);
  }

  /** The form's handlers: it opens by itself, at once; a submission moves the focus to a field to mend, or the note. */
  readonly handlers: RequestHandlers = {
    open: () => undefined,
    submit: (e) => {
      e.preventDefault();
      void this.submit(e.target as HTMLFormElement).then((done) => {
        if (!done) return;
        this.host.focusAfterRender(done === 'sent' ? '[part~=request-sent]' : `#${this.id(done)}`);
        this.host.changed();
      });
    },
  };

  private id(field: string): string {
    return requestId(field, this.idPrefix ? { idPrefix: this.idPrefix } : undefined);
  }

  close(): void {
    this.lines = [];
    this.done = 0;
    this.state = null;
  }

  private patch(change: Partial<RequestState>): void {
    if (this.state) this.state = { ...this.state, ...change };
    this.host.changed();
  }

  /** Checks the form as the server does, then sends one request per line not yet sent, in order. */
  private async submit(form: HTMLFormElement): Promise<Submitted> {
    const client = this.host.client;
    if (!this.state || this.state.sending || this.state.sent || !client) return null;
    const { name, email, note, errors, first } = readContact(form);
    if (first) {
      this.patch({ errors, failure: null });
      return first;
    }
    this.patch({ errors: {}, failure: null, sending: true });
    const lines = this.lines;
    try {
      for (; this.done < lines.length; this.done++) {
        const line = lines[this.done]!;
        const sent = await client.requestQuote({
          ...line.body,
          reason: 'no_cart',
          name,
          email,
          note,
          ...requestPage(),
        });
        if (this.lines !== lines) return null; // another set of lines was added meanwhile
        this.host.emit('sq-quote-request', {
          request_id: sent.request_id,
          file_id: line.file_id,
          quote_id: line.quote_id,
          reason: 'no_cart',
        });
      }
      this.patch({ sending: false, sent: email });
      return 'sent';
    } catch (e) {
      const err = toWidgetError(e);
      this.patch({ sending: false, failure: err.detail });
      this.host.emit('sq-error', err.detail);
      return null;
    }
  }
}
