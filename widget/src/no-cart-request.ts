// "Request a quote" for lines no cart on the page took, beyond the single part's (quote-request.ts): the rows that
// "Add all to cart" recorded with `multiple`, one request each, sent from one form; and a kept quote ordered from
// its link, requested by the link (any browser holding it may: the part may be another browser's upload). Without
// it those shoppers read "reserved — the shop will contact you" while the shop has no way to reach them.
import type { QuoteRequestBody, WidgetApi } from './api.ts';
import { toWidgetError } from './errors.ts';
import type { QuoteRequestDetail } from './events.ts';
import { contactProblems, type ContactField, newRequest, type RequestState } from './quote-request.ts';
import type { ErrorDetail } from './types.ts';

/** One line the request is about: what the server is told (an upload and its quote, or a kept link). */
export interface NoCartLine {
  body: Pick<QuoteRequestBody, 'file_id' | 'quote_id' | 'quantity' | 'link'>;
  /** For `sq-quote-request`. */
  file_id: string;
  quote_id: string | null;
}

export interface NoCartHost {
  client(): WidgetApi | null;
  changed(): void;
  requested(detail: QuoteRequestDetail): void;
  failed(detail: ErrorDetail): void;
}

/** What the form's submission did: a field to mend, all sent, or nothing more to do now (a failure is shown). */
export type Submitted = ContactField | 'sent' | null;

export class NoCartRequest {
  /** The form's state; null when no lines wait for a request. */
  state: RequestState | null = null;
  private lines: NoCartLine[] = [];
  /** Lines already sent: after a failure part-way, sending again sends only the others. */
  private done = 0;

  constructor(private readonly host: NoCartHost) {}

  /** How many parts the request is about. */
  get count(): number {
    return this.lines.length;
  }

  /** Opens the form for `lines` (a new set of lines starts a new form, open at once). */
  open(lines: NoCartLine[]): void {
    this.lines = lines;
    this.done = 0;
    this.state = newRequest(lines.map((l) => l.body.link ?? l.body.quote_id ?? l.file_id).join('|'), true);
    this.host.changed();
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
  async submit(form: HTMLFormElement): Promise<Submitted> {
    const client = this.host.client();
    if (!this.state || this.state.sending || this.state.sent || !client) return null;
    const data = new FormData(form);
    const [name, email, note] = (['name', 'email', 'note'] as const).map((f) => String(data.get(f) ?? ''));
    const errors = contactProblems(name!, email!, note!);
    const first = (['name', 'email', 'note'] as ContactField[]).find((f) => errors[f]);
    if (first) {
      this.patch({ errors, failure: null });
      return first;
    }
    this.patch({ errors: {}, failure: null, sending: true });
    const page = location.href.length <= 2000 && /^https?:/.test(location.href) ? location.href : undefined;
    const lines = this.lines;
    try {
      for (; this.done < lines.length; this.done++) {
        const line = lines[this.done]!;
        const sent = await client.requestQuote({
          ...line.body,
          reason: 'no_cart',
          name: name!.trim(),
          email: email!.trim(),
          note: note!.trim(),
          ...(page ? { page } : {}),
        });
        if (this.lines !== lines) return null; // another set of lines was added meanwhile
        this.host.requested({
          request_id: sent.request_id,
          file_id: line.file_id,
          quote_id: line.quote_id,
          reason: 'no_cart',
        });
      }
      this.patch({ sending: false, sent: email!.trim() });
      return 'sent';
    } catch (e) {
      const err = toWidgetError(e);
      this.patch({ sending: false, failure: err.detail });
      this.host.failed(err.detail);
      return null;
    }
  }
}
