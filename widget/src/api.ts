// The widget's HTTP client. Every call carries the publishable key in X-Widget-Key; the browser adds
// Origin, which the server checks against the key's allowed origins. The upload goes to the
// upload_url of a single-use ticket, through XMLHttpRequest because fetch reports no upload progress.

import type { CoarseFeatures, Features } from '../../shared/estimate/index.ts';
import { httpError, networkError, WidgetError } from './errors.ts';
import type {
  CartLine,
  Estimate,
  FileRecord,
  Job,
  JobAccepted,
  KeptQuote,
  KeptQuoteLink,
  MaterialPrices,
  Quote,
  UploadTicket,
  WidgetConfig,
} from './types.ts';

/** A widget sends only the shopper's choices from the offer; the shop prices them. */

/** Seconds a quote request waits for a quick or cached slice before the server answers with the job. */
const QUOTE_WAIT_S = 1;
/**
 * Seconds a job read waits for the job to finish (`Prefer: wait`): the exact price arrives the moment it exists,
 * and the progress between answers is at most this old.
 */
const JOB_WAIT_S = 2;
export interface QuoteRequest {
  choices: { material: string; color?: string; quality: string; infill: number; lead_time?: string };
}

/** What a quote request sends (the contract's QuoteRequestCreate). */
export type QuoteRequestBody = import('../../shared/api/schema.ts').components['schemas']['QuoteRequestCreate'];

export class WidgetApi {
  private readonly base: string;
  /** The shopper's session, issued with the first upload id; a shopper reads only their own uploads and quotes. */
  private shopperToken: string | null = null;
  private firstTicket: Promise<UploadTicket> | null = null;

  constructor(
    api: string,
    private readonly key: string,
  ) {
    this.base = api.replace(/\/+$/, '');
  }

  config(signal?: AbortSignal): Promise<WidgetConfig> {
    return this.json('GET', '/v2/widget/config', undefined, signal);
  }

  /** Every offered material priced for the part with these other choices (never slices, never cartable). */
  prices(fileId: string, quality: string, infill: number, signal?: AbortSignal): Promise<MaterialPrices> {
    const query = new URLSearchParams({ quality, infill: String(infill) });
    return this.json('GET', `/v2/widget/files/${encodeURIComponent(fileId)}/prices?${query}`, undefined, signal);
  }

  async uploadTicket(signal?: AbortSignal): Promise<UploadTicket> {
    // The first upload id issues the shopper's token. Parts uploaded together wait for it, so that every part
    // is the same shopper's (a second token would make the first part's quotes answer 404).
    while (!this.shopperToken && this.firstTicket) {
      const pending = this.firstTicket;
      await pending.catch(() => undefined);
      if (this.firstTicket === pending) this.firstTicket = null; // it failed: this call asks instead
    }
    const request = this.json<UploadTicket>('GET', '/v2/file/upload-id', undefined, signal);
    if (!this.shopperToken) this.firstTicket = request;
    const ticket = await request;
    this.shopperToken = ticket.shopper_token ?? this.shopperToken;
    return ticket;
  }

  /**
   * 200 carries the quote (a cached or quick slice); 202 the job to poll and its instant estimate. The server
   * holds the connection for at most QUOTE_WAIT_S (RFC 7240 `Prefer: wait`), so the estimate shows at once.
   */
  async quote(
    fileId: string,
    body: QuoteRequest,
    signal?: AbortSignal,
  ): Promise<{ quote: Quote } | { job: JobAccepted }> {
    const res = await this.request<Quote | JobAccepted>(
      'POST',
      `/v2/file/quote/${encodeURIComponent(fileId)}`,
      body,
      signal,
      { Prefer: `wait=${QUOTE_WAIT_S}` },
    );
    return res.status === 202 ? { job: res.body as JobAccepted } : { quote: res.body as Quote };
  }

  /** Re-reads the shopper's upload in another unit, or scales it (POST /v2/file/scale/{file_id}). */
  rescale(fileId: string, body: { unit: string } | { scale: number }): Promise<FileRecord> {
    return this.json('POST', `/v2/file/scale/${encodeURIComponent(fileId)}`, body);
  }

  /** The job, answered as soon as it finishes or after `waitS` (JOB_WAIT_S) with its progress; 0: at once. */
  async job(statusUrl: string, signal?: AbortSignal, waitS = JOB_WAIT_S): Promise<Job> {
    const prefer: Record<string, string> = waitS > 0 ? { Prefer: `wait=${waitS}` } : {};
    return (await this.request<Job>('GET', statusUrl, undefined, signal, prefer)).body;
  }

  /**
   * The first price, before the upload has arrived: the estimator's features measured in the browser, the coarse
   * stage's (`coarse_features`) or the fine stage's (`features`), priced by the shop (POST /v2/widget/estimate).
   * An estimate, never a price: nothing can be bought with it.
   */
  async estimate(
    measured: { features: Features } | { coarse_features: CoarseFeatures },
    choices: QuoteRequest['choices'],
    signal?: AbortSignal,
  ): Promise<{ estimate: Estimate }> {
    return this.json('POST', '/v2/widget/estimate', { ...measured, choices }, signal);
  }

  /** Deletes the shopper's own upload (one the browser's parse refused after it was sent). */
  deleteFile(fileId: string): Promise<unknown> {
    return this.json('DELETE', `/v2/file/${encodeURIComponent(fileId)}`);
  }

  addToCart(quoteId: string, quantity: number): Promise<CartLine> {
    return this.json('POST', '/v2/widget/cart', { quote_id: quoteId, quantity });
  }

  /** The page's cart took these lines (POST /v2/widget/cart/acknowledge). */
  acknowledge(cartLineIds: string[]): Promise<{ acknowledged: string[] }> {
    return this.json('POST', '/v2/widget/cart/acknowledge', { cart_line_ids: cartLineIds });
  }

  /** Several lines in one call, all or nothing: a refused line's error carries its index (WidgetError.line). */
  addLinesToCart(lines: { quote_id: string; quantity: number }[]): Promise<{ lines: CartLine[] }> {
    return this.json('POST', '/v2/widget/cart', { lines });
  }

  /** A signed link to a priced quote at a quantity, for the shopper to keep (POST /v2/quotes/{quote_id}/link). */
  keepQuote(quoteId: string, quantity: number): Promise<KeptQuoteLink> {
    return this.json('POST', `/v2/quotes/${encodeURIComponent(quoteId)}/link`, { quantity });
  }

  /**
   * Orders a kept quote at its link's quantity (POST /v2/kept-quotes/{token}/cart). An add belongs to a shopper
   * session: a page that uploaded nothing yet asks for its token first (an upload id issues it, and expires unused).
   */
  async orderKept(token: string): Promise<CartLine> {
    if (!this.shopperToken) await this.uploadTicket();
    return this.json('POST', `/v2/kept-quotes/${encodeURIComponent(token)}/cart`);
  }

  /** Asks the shop to price a part by hand (POST /v2/quote-requests): the shopper's contact, never a price. */
  requestQuote(body: QuoteRequestBody): Promise<{ request_id: string; status: 'requested'; created_at: string }> {
    return this.json('POST', '/v2/quote-requests', body);
  }

  /** The quote a kept link stands for (GET /v2/kept-quotes/{token}). */
  keptQuote(token: string, signal?: AbortSignal): Promise<KeptQuote> {
    return this.json('GET', `/v2/kept-quotes/${encodeURIComponent(token)}`, undefined, signal);
  }

  /**
   * The kept quote's PDF: fetched with the key (a plain link could not carry it), handed over as a Blob. `page` is
   * the shop page the PDF links back to.
   */
  async keptQuotePdf(token: string, page: string): Promise<Blob> {
    let res: Response;
    const query = new URLSearchParams({ page });
    try {
      res = await fetch(this.url(`/v2/kept-quotes/${encodeURIComponent(token)}/pdf?${query}`), {
        headers: { 'X-Widget-Key': this.key, Accept: 'application/pdf' },
        credentials: 'omit',
      });
    } catch {
      throw networkError();
    }
    if (!res.ok) throw httpError(res.status, await res.json().catch(() => null), res.headers.get('Retry-After'));
    return res.blob();
  }

  upload(
    ticket: UploadTicket,
    file: File,
    onProgress: (fraction: number) => void,
    signal?: AbortSignal,
  ): Promise<FileRecord> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', this.url(ticket.upload_url));
      xhr.responseType = 'json';
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onload = () => {
        if (xhr.status === 201 || xhr.status === 200) resolve(xhr.response as FileRecord);
        else reject(httpError(xhr.status, xhr.response, xhr.getResponseHeader('Retry-After')));
      };
      xhr.onerror = () => reject(networkError());
      xhr.onabort = () => reject(new DOMException('Upload aborted', 'AbortError'));
      signal?.addEventListener('abort', () => xhr.abort(), { once: true });
      const form = new FormData();
      form.append('file', file, file.name);
      xhr.send(form);
    });
  }

  /** Absolute URLs (upload_url) are used as given; paths (status_url) are joined to the API base. */
  private url(pathOrUrl: string): string {
    return /^https?:\/\//i.test(pathOrUrl) ? pathOrUrl : this.base + pathOrUrl;
  }

  private async json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    return (await this.request<T>(method, path, body, signal)).body;
  }

  private async request<T>(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    extraHeaders: Record<string, string> = {},
  ): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { 'X-Widget-Key': this.key, Accept: 'application/json', ...extraHeaders };
    if (this.shopperToken) headers['X-Shopper-Token'] = this.shopperToken;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.url(path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        credentials: 'omit',
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw networkError();
    }
    const parsed = await res.json().catch(() => null);
    if (!res.ok) throw httpError(res.status, parsed, res.headers.get('Retry-After'));
    if (parsed === null) throw new WidgetError('bad_response', 'The quoting service sent an unreadable answer.', true);
    return { status: res.status, body: parsed as T };
  }
}
