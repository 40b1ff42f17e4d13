// <slice-quote api="https://HOST" key="pk_..."> — the storefront widget. A shopper drops a model;
// it is parsed in a Web Worker, previewed in 3D on the printer's plate, uploaded, quoted from a
// real slice, re-quoted as options change, and added to the cart. With `multiple`, the shopper drops
// several models, each a row with its own options and price, and adds them all to the cart at once.
// This file is the orchestration; one part's way to a price is part-flow.ts, the templates are in
// view.ts and parts-view.ts, the scene in preview.ts, the HTTP calls in api.ts.
import { LitElement, type PropertyValues } from 'lit';
import { WidgetApi } from './api.ts';
import { toWidgetError, WidgetError } from './errors.ts';
import { dimensions, type CurrencyDisplay } from './format.ts';
import { type PartHost, PartFlow, partStatus, REPRICE } from './part-flow.ts';
import { renderParts, type PartsHandlers, type PartsState } from './parts-view.ts';
import { Preview } from './preview.ts';
import { prefetchParser } from './parse-client.ts';
import { findMaterial, initialSelection, swatchOf } from './selection.ts';
import type { ShopState, StageError, WidgetState } from './state.ts';
import { styles } from './styles.ts';
import type { AddToCartDetail, KeptQuote, Quote, Selection, WidgetConfig } from './types.ts';
import { renderWidget, type Handlers, type SingleState } from './view.ts';
import { handOff, postToCartUrl } from './cart-handoff.ts';
import { warnMerchant } from './merchant-hints.ts';
import type { PartEvent, SliceQuoteEventDetails, SliceQuoteEvents } from './events.ts';
import { linkFromPage, renderKept } from './kept-quote.ts';
import type { KeptHandlers, KeptOrder, KeptView } from './kept-types.ts';
import { savePdf } from './kept-link.ts';
import { keptCartDetail, keptThumbnail } from './kept-order.ts';
import {
  contactProblems,
  aboveRule,
  newRequest,
  requestAbout,
  requestId,
  requestReason,
  type ContactField,
  type RequestHandlers,
  type RequestReason,
  type RequestState,
} from './quote-request.ts';
import { quoteRequest } from './quote-flow.ts';
import { type NoCartHost, type NoCartLine, NoCartRequest, type Submitted } from './no-cart-request.ts';

/** Parts in one widget with `multiple`: the default, and the most `max-parts` may ask for. */
export const DEFAULT_MAX_PARTS = 10;
export const MAX_PARTS_CAP = 25;
/** Parts read and uploaded at once; the others wait their turn (their slices then run in parallel). */
const LOAD_CONCURRENCY = 3;

type ElementState = ShopState & {
  configError: StageError | null;
  /** A kept quote opened from a link, shown instead of the drop zone until the shopper closes it. */
  kept: KeptView | null;
  keptDownloading: boolean;
  /** Add to cart of the kept quote shown: under way, done, or why not. */
  keptOrder: KeptOrder | null;
};

export class SliceQuote extends LitElement {
  static override styles = styles;
  static override properties = {
    api: { type: String },
    key: { type: String },
    material: { type: String },
    currencyDisplay: { type: String, attribute: 'currency-display' },
    locale: { type: String },
    multiple: { type: Boolean, reflect: true },
    maxParts: { type: Number, attribute: 'max-parts' },
    cartUrl: { type: String, attribute: 'cart-url' },
    quoteLink: { type: String, attribute: 'quote-link' },
    s: { state: true },
    m: { state: true },
  };

  declare api: string | null;
  declare key: string | null;
  declare material: string | null;
  declare currencyDisplay: CurrencyDisplay | null;
  declare locale: string | null;
  /** Several parts, each a row, and one "Add all to cart". */
  declare multiple: boolean;
  /** The most parts with `multiple` (default 10, at most 25). */
  declare maxParts: number | null;
  /** Where the added lines go as a form POST when no listener on the page takes them (cart-handoff.ts). */
  declare cartUrl: string | null;
  /** A kept quote's link to open (kept-quote.ts); without it, `sq-quote` in the page's address. */
  declare quoteLink: string | null;
  declare private s: ElementState;
  declare private m: PartsState;

  private client: WidgetApi | null = null;
  private configPromise: Promise<WidgetConfig | null> | null = null;
  private configRun: AbortController | null = null;
  private configFailed = false;
  /** The one part without `multiple`. */
  private readonly single: PartFlow;
  /** The rows with `multiple`, in the order the shopper added them. */
  private parts: PartFlow[] = [];
  /** Files dropped while the configuration could not be loaded; taken once it is. */
  private pendingFiles: File[] = [];
  private loading = 0;
  private readonly waiting: (() => void)[] = [];
  /** With `multiple`: each row's 128 px picture, drawn by one off-screen 3D view. */
  private readonly thumbnails = new Map<number, string>();
  private thumbnailer: Preview | null = null;
  /** Where focus goes after the next render (a row was removed). */
  private focusAfterRender: (() => HTMLElement | null) | null = null;
  private preview: Preview | null = null;
  private readonly resize = new ResizeObserver(([entry]) => {
    if (entry) this.preview?.resize(entry.contentRect.width, entry.contentRect.height);
  });
  private observed: Element | null = null;
  /** "Request a quote" of each part (quote-request.ts): the form's state, for the part and price it is about. */
  private readonly rfq = new WeakMap<PartFlow, RequestState>();
  /** Request a quote of what no cart took beyond a single part: the rows Add all recorded, a kept quote ordered. */
  private readonly linesRequest = new NoCartRequest(this.noCartHost());
  private readonly keptRequest = new NoCartRequest(this.noCartHost());

  constructor() {
    super();
    this.api = this.key = this.material = this.currencyDisplay = this.locale = this.maxParts = this.cartUrl = null;
    this.quoteLink = null;
    this.multiple = false;
    this.s = {
      config: null,
      configError: null,
      dragging: false,
      previewUnavailable: false,
      locale: undefined,
      currencyDisplay: 'symbol',
      kept: null,
      keptDownloading: false,
      keptOrder: null,
    };
    this.m = { adding: false, added: null, reserved: false, refused: [], cartError: null, lineRefused: null };
    this.single = new PartFlow(this.host, null);
    this.addEventListener('dragenter', this.onDrag);
    this.addEventListener('dragover', this.onDrag);
    this.addEventListener('dragleave', this.onDragLeave);
    this.addEventListener('drop', this.onDrop);
  }

  // ---- public API ------------------------------------------------------------------------------

  /** The merchant's configuration from GET /v2/widget/config, once loaded. */
  get config(): WidgetConfig | null {
    return this.s.config;
  }

  /** The quote currently shown, or null (always null with `multiple`: each row has its own). */
  get quote(): Quote | null {
    return this.multiple ? null : this.single.s.quote;
  }

  /** Takes a model file as if the shopper had dropped it (with `multiple`, adds it as a row). */
  async load(file: File): Promise<void> {
    if (this.multiple) return this.addFiles([file]);
    const part = this.single;
    const signal = part.start(file);
    this.preview?.clearModel();
    const config = await this.ensureConfig();
    if (signal.aborted) return;
    if (!config) {
      // ensureConfig has shown why (unreachable service, unknown key, origin not allowed); the shopper can
      // drop the file again or press Try again, which reloads the configuration and then takes the file.
      part.patch({ parsing: false });
      if (!this.configPromise) this.failConfig(notConfigured());
      return;
    }
    await part.read(config, signal);
  }

  /** A square PNG data URL of the 3D view ('' without one); the add-to-cart thumbnail. */
  snapshot(size = 128): string {
    return this.preview && this.single.s.model ? this.preview.snapshot(size) : '';
  }

  /** Back to the empty drop zone (with `multiple`, removes every row). */
  reset(): void {
    this.single.clear();
    this.preview?.clearModel();
    for (const part of this.parts) part.cancel();
    this.parts = [];
    this.pendingFiles = [];
    this.thumbnails.clear();
    this.m = { adding: false, added: null, reserved: false, refused: [], cartError: null, lineRefused: null };
    this.linesRequest.close();
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.single.parsed && !this.preview && !this.multiple) this.showModel();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    // WebGL contexts are scarce (browsers keep ~16): give ours back; it is rebuilt on reconnect.
    this.resize.disconnect();
    this.observed = null;
    this.preview?.dispose();
    this.preview = null;
    this.thumbnailer?.dispose();
    this.thumbnailer = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('api') || changed.has('key')) && this.api && this.key) {
      this.client = new WidgetApi(this.api, this.key);
      void this.loadConfig();
      const link = linkFromPage(this.quoteLink, location.href);
      if (link) void this.openKept(link);
    }
    if (changed.has('material') && this.s.config && this.single.s.selection && this.material) {
      const m = findMaterial(this.s.config, this.material);
      if (m) this.single.select('material', m.name);
    }
    if (changed.has('locale') || changed.has('currencyDisplay')) {
      this.s = { ...this.s, locale: this.locale ?? undefined, currencyDisplay: this.currencyDisplay ?? 'symbol' };
    }
    if (changed.has('multiple') && this.hasUpdated) this.reset();
  }

  protected override render() {
    // A kept quote's link opens it in either widget: a row's Save or share makes such links too.
    if (this.s.kept) {
      const { state } = this.keptRequest;
      const request = state && { state, handlers: this.noCartHandlers(this.keptRequest, undefined) };
      return renderKept(this.s.kept, this.s, this.s.keptDownloading, this.s.keptOrder, this.keptHandlers, request);
    }
    if (this.multiple)
      return renderParts(this.s, this.parts, this.m, this.maxPartsAllowed, this.thumbnails, this.partsHandlers);
    const { single } = this;
    const shown: WidgetState = { ...this.s, ...single.s, error: this.s.configError ?? single.s.error };
    const s: SingleState = {
      ...shown,
      keep: single.keeper.state,
      comparing: single.comparison.open,
      prices: single.comparison.prices,
      request: this.requestView(this.single, shown),
    };
    return renderWidget(s, this.single.s.model ? (this.preview?.canvas ?? null) : null, this.handlers);
  }

  /**
   * Keeps keyboard focus inside the widget when a render removes or disables the focused control (the
   * drop zone's button once the model is shown, "Try again" once it worked, a removed row): focus moves to
   * the control that took its place, else to the price, instead of falling to the page's body.
   */
  protected override update(changed: PropertyValues<this>): void {
    const focused = (this.renderRoot as ShadowRoot).activeElement as HTMLElement | null;
    super.update(changed);
    const planned = this.focusAfterRender?.();
    this.focusAfterRender = null;
    if (planned) {
      planned.focus({ preventScroll: true });
      return;
    }
    if (!focused || (focused.isConnected && !(focused as HTMLButtonElement).disabled)) return;
    const sameRole = focused.getAttribute('part')?.includes('choose-button')
      ? this.renderRoot.querySelector<HTMLElement>('[part~=choose-button]')
      : null;
    const target = sameRole ?? this.renderRoot.querySelector<HTMLElement>('[part~=price]');
    target?.focus({ preventScroll: true });
  }

  protected override updated(): void {
    for (const part of this.multiple ? this.parts : [this.single]) part.comparison.refresh(this.client, part.s);
    const viewport = this.renderRoot.querySelector('.viewport');
    if (viewport === this.observed) return;
    this.resize.disconnect();
    this.observed = viewport;
    if (viewport) this.resize.observe(viewport);
  }

  // ---- steps -----------------------------------------------------------------------------------

  /** The configuration, loading it again when the last attempt failed (the cause may be gone by now). */
  private async ensureConfig(): Promise<WidgetConfig | null> {
    if (this.s.config) return this.s.config;
    if (!this.client) return null;
    return this.configFailed ? this.loadConfig() : this.configPromise;
  }

  private loadConfig(): Promise<WidgetConfig | null> {
    this.configRun?.abort();
    const run = new AbortController();
    this.configRun = run;
    this.configFailed = false;
    this.patch({ config: null, configError: null });
    this.single.patch({ selection: null });
    this.configPromise = this.client!.config(run.signal).then(
      (config) => {
        if (run.signal.aborted) return null;
        this.patch({ config });
        this.single.patch({ selection: initialSelection(config, this.material) });
        this.preview?.setBuildVolume(config.build_volume);
        // The options are drawn: the parser's code can come now, off the page's first load.
        prefetchParser();
        return config;
      },
      (e) => {
        if (run.signal.aborted) return null;
        this.configFailed = true;
        this.failConfig(e);
        return null;
      },
    );
    return this.configPromise;
  }

  private async addToCart(): Promise<void> {
    const detail = await this.single.addToCart();
    if (detail) await this.deliver([detail], detail, (taken) => this.single.patch({ reserved: !taken }));
  }

  /**
   * Hands the lines the server recorded to the shop's cart: the page's listener (sq-add-to-cart), else the
   * cart-url; `show` says which the shopper reads, "Added to your cart" or "reserved" (cart-handoff.ts).
   */
  private async deliver<T extends object>(lines: AddToCartDetail[], detail: T, show: (taken: boolean) => void) {
    const ids = lines.map((l) => l.cart_line_id);
    // A failed acknowledgement loses nothing: the line stays in the shop's orders, marked unacknowledged.
    const acknowledge = () => this.client!.acknowledge(ids).catch(() => undefined);
    const taken = handOff(this, detail, () => {
      show(true);
      void acknowledge();
    });
    if (!taken && this.cartUrl) {
      await acknowledge(); // recorded before the page leaves for the shop's cart
      show(true);
      postToCartUrl(this.cartUrl, lines);
      return;
    }
    if (taken) void acknowledge();
    show(taken);
  }

  private retry(): void {
    if (this.s.configError) {
      this.patch({ configError: null });
      void this.loadConfig().then((config) => {
        if (!config) return;
        if (this.multiple) void this.addFiles(this.pendingFiles.splice(0));
        else if (this.single.sourceFile && !this.single.s.model) void this.load(this.single.sourceFile);
      });
    } else if (this.single.s.error?.stage === 'cart') {
      this.single.patch({ error: null });
      void this.addToCart();
    } else this.single.retry();
  }

  // ---- kept quotes (kept-quote.ts) ---------------------------------------------------------------

  private async openKept(token: string): Promise<void> {
    this.keptRequest.close();
    this.patch({ kept: { status: 'loading' }, keptOrder: null });
    try {
      this.patch({ kept: { status: 'shown', kept: await this.client!.keptQuote(token) } });
    } catch (e) {
      const err = toWidgetError(e);
      this.patch({ kept: { status: 'failed', code: err.code, message: err.message } });
      this.emit('sq-error', err.detail);
    }
  }

  /** Save or share: a link to the part's quote at its quantity; its field takes the focus once shown. */
  private async keepQuote(part: PartFlow, linkField: string): Promise<void> {
    const { quote, selection } = part.s;
    if (!quote || !selection || !this.client) return;
    if (!(await part.keeper.keep(this.client, quote, selection.quantity))) return;
    // The link may already be drawn (the keeper's change rendered it): one more render moves the focus there.
    this.focusAfterRender = () => this.renderRoot.querySelector<HTMLElement>(`#${linkField}`);
    this.requestUpdate();
  }

  /** Orders the kept quote shown: the server records the line, the page's cart takes it (or the fallback). */
  private async orderKept(kept: KeptQuote): Promise<void> {
    if (this.s.keptOrder?.status === 'adding') return;
    this.patch({ keptOrder: { status: 'adding' } });
    try {
      const line = await this.client!.orderKept(kept.token);
      const detail = keptCartDetail(kept, line, this.s.config, await keptThumbnail(kept.picture), this.s.locale);
      // With `multiple` the page's cart code reads `lines`, whatever was added.
      await this.deliver([detail], this.multiple ? { lines: [detail] } : detail, (taken) => {
        this.patch({ keptOrder: { status: 'added', reserved: !taken, line } });
        // No cart took it: the shop needs the shopper's contact, unless it priced the link on their request.
        if (!taken && !kept.quote.manual)
          this.openNoCartRequest(this.keptRequest, undefined, [
            { body: { link: kept.token }, file_id: line.file_id, quote_id: line.quote_id },
          ]);
      });
    } catch (e) {
      const err = toWidgetError(e);
      this.patch({ keptOrder: { status: 'failed', code: err.code, message: err.message, retryable: err.retryable } });
      this.emit('sq-error', err.detail);
    }
  }

  /** The PDF of the kept quote shown, or of a part's saved link (`part`). */
  private async downloadPdf(token: string, part?: PartFlow): Promise<void> {
    try {
      if (part) return await part.keeper.downloadPdf(this.client!, token);
      if (this.s.keptDownloading) return;
      this.patch({ keptDownloading: true });
      await savePdf(this.client!, token).finally(() => this.patch({ keptDownloading: false }));
    } catch (e) {
      this.emit('sq-error', toWidgetError(e).detail);
    }
  }

  private readonly keptHandlers: KeptHandlers = {
    keep: () => void this.keepQuote(this.single, 'kept-link'),
    copyLink: () => void this.single.keeper.copy(this.renderRoot.querySelector<HTMLTextAreaElement>('#kept-link')),
    downloadPdf: (token) => void this.downloadPdf(token, this.s.kept ? undefined : this.single),
    order: (kept) => void this.orderKept(kept),
    closeKept: () => {
      this.keptRequest.close();
      this.patch({ kept: null, keptOrder: null });
      this.focusAfterRender = () => this.renderRoot.querySelector<HTMLElement>('[part~=choose-button]');
    },
  };

  // ---- request a quote (quote-request.ts) ---------------------------------------------------------

  /**
   * Why a part needs a request, with its form's state (a new part or price starts a new form). A row of several parts
   * is offered one where it cannot be priced automatically or the merchant's rule asks for it, as a single part is;
   * no cart taking the rows is said for them all, under Add all to cart.
   */
  private requestView(part: PartFlow, s: WidgetState): { reason: RequestReason; state: RequestState } | null {
    const reason = requestReason(s);
    if (!reason || (this.multiple && reason === 'no_cart')) return null;
    const about = requestAbout(s, reason);
    let state = this.rfq.get(part);
    if (state?.about !== about) {
      // No cart took the line: the form is the next step, so it opens at once and takes the focus.
      state = newRequest(about, reason === 'no_cart');
      this.rfq.set(part, state);
      if (reason === 'no_cart')
        this.focusAfterRender = () => {
          // In view (on a phone the form is above the sticky bar, out of sight), then focused.
          const name = this.renderRoot.querySelector<HTMLElement>(`#${requestId('name', this.rowOf(part))}`);
          name?.scrollIntoView({ block: 'center' });
          return name;
        };
    }
    return { reason, state };
  }

  /** A row's id prefix (its form's ids are its own); none for the single part. */
  private rowOf(part: PartFlow): { idPrefix: string } | undefined {
    return part === this.single ? undefined : { idPrefix: `p${part.id}` };
  }

  private patchRequest(part: PartFlow, change: Partial<RequestState>): void {
    const state = this.rfq.get(part);
    if (state) this.rfq.set(part, { ...state, ...change });
    this.requestUpdate();
  }

  private async sendRequest(part: PartFlow, form: HTMLFormElement): Promise<void> {
    const s = part.s;
    const view = this.requestView(part, { ...this.s, ...s });
    if (!view || !s.file || !s.selection || view.state.sending) return;
    const row = this.rowOf(part);
    const data = new FormData(form);
    const [name, email, note] = (['name', 'email', 'note'] as const).map((f) => String(data.get(f) ?? ''));
    const errors = contactProblems(name!, email!, note!);
    const first = (['name', 'email', 'note'] as ContactField[]).find((f) => errors[f]);
    if (first) {
      this.patchRequest(part, { errors, failure: null });
      this.focusAfterRender = () => this.renderRoot.querySelector<HTMLElement>(`#${requestId(first, row)}`);
      return;
    }
    this.patchRequest(part, { errors: {}, failure: null, sending: true });
    const sel = s.selection;
    const quote = view.reason === 'not_priceable' ? null : s.quote;
    const page = location.href.length <= 2000 && /^https?:/.test(location.href) ? location.href : undefined;
    try {
      const sent = await this.client!.requestQuote({
        file_id: s.file.file_id,
        quote_id: quote?.quote_id ?? null,
        ...(quote ? {} : { choices: quoteRequest(sel).choices }),
        quantity: sel.quantity,
        reason: view.reason,
        reason_code: view.reason === 'not_priceable' ? (s.error?.code ?? null) : null,
        name: name!.trim(),
        email: email!.trim(),
        note: note!.trim(),
        ...(page ? { page } : {}),
      });
      this.patchRequest(part, { sending: false, sent: email!.trim() });
      const sentNote = row ? `#part-${part.id} [part~=request-sent]` : '[part~=request-sent]';
      this.focusAfterRender = () => this.renderRoot.querySelector<HTMLElement>(sentNote);
      this.emit('sq-quote-request', {
        request_id: sent.request_id,
        file_id: s.file.file_id,
        quote_id: quote?.quote_id ?? null,
        reason: view.reason,
      });
    } catch (e) {
      const err = toWidgetError(e);
      this.patchRequest(part, { sending: false, failure: err.detail });
      this.emit('sq-error', err.detail);
    }
  }

  // ---- request a quote of lines no cart took (no-cart-request.ts) ---------------------------------

  private noCartHost(): NoCartHost {
    return {
      client: () => this.client,
      changed: () => this.requestUpdate(),
      requested: (detail) => this.emit('sq-quote-request', detail),
      failed: (detail) => this.emit('sq-error', detail),
    };
  }

  /** Opens the form for lines no cart took; it comes into view with the focus on its first field. */
  private openNoCartRequest(request: NoCartRequest, idPrefix: string | undefined, lines: NoCartLine[]): void {
    request.open(lines);
    const row = idPrefix ? { idPrefix } : undefined;
    this.focusAfterRender = () => {
      const name = this.renderRoot.querySelector<HTMLElement>(`#${requestId('name', row)}`);
      name?.scrollIntoView({ block: 'center' });
      return name;
    };
  }

  private noCartHandlers(request: NoCartRequest, idPrefix: string | undefined): RequestHandlers {
    const row = idPrefix ? { idPrefix } : undefined;
    return {
      open: () => undefined, // the form opens by itself, at once
      submit: (e) => {
        e.preventDefault();
        void request.submit(e.target as HTMLFormElement).then((done: Submitted) => {
          if (!done) return;
          const target = done === 'sent' ? '[part~=request-sent]' : `#${requestId(done, row)}`;
          this.focusAfterRender = () => this.renderRoot.querySelector<HTMLElement>(target);
          this.requestUpdate();
        });
      },
    };
  }

  /** The request form's handlers of a part (the single part, or a row). */
  private requestHandlers(part: PartFlow): RequestHandlers {
    return {
      open: () => {
        this.patchRequest(part, { open: true });
        this.focusAfterRender = () =>
          this.renderRoot.querySelector<HTMLElement>(`#${requestId('name', this.rowOf(part))}`);
      },
      submit: (e) => {
        e.preventDefault();
        void this.sendRequest(part, e.target as HTMLFormElement);
      },
    };
  }

  // ---- several parts ---------------------------------------------------------------------------

  /** `max-parts` within 1..25; 10 when absent or not a number. */
  private get maxPartsAllowed(): number {
    const n = Math.floor(Number(this.maxParts));
    return Number.isFinite(n) && n >= 1 ? Math.min(n, MAX_PARTS_CAP) : DEFAULT_MAX_PARTS;
  }

  /** New rows for `files`, as many as the limit leaves room for; the others are named in a notice. */
  private async addFiles(files: File[]): Promise<void> {
    if (!files.length) return;
    const config = await this.ensureConfig();
    // Counted after the wait, so that two quick drops cannot pass the limit together.
    const room = Math.max(0, this.maxPartsAllowed - this.parts.length - this.pendingFiles.length);
    this.m = { ...this.m, added: null, refused: files.slice(room).map((f) => f.name) };
    const taken = files.slice(0, room);
    if (!config) {
      // The reason is shown (ensureConfig); Try again reloads the configuration and then adds these files.
      this.pendingFiles.push(...taken);
      if (!this.configPromise) this.failConfig(notConfigured());
      return;
    }
    await Promise.all(
      taken.map((file) => {
        const part = new PartFlow(this.host, initialSelection(config, this.material));
        this.parts = [...this.parts, part];
        const signal = part.start(file);
        part.patch({ parsing: false }); // queued until its turn comes
        return this.inTurn(async () => {
          if (signal.aborted) return;
          part.patch({ parsing: true });
          await part.read(config, signal);
        });
      }),
    );
  }

  /** Runs `step` when fewer than LOAD_CONCURRENCY parts are being read and uploaded. */
  private async inTurn(step: () => Promise<void>): Promise<void> {
    while (this.loading >= LOAD_CONCURRENCY) await new Promise<void>((wake) => this.waiting.push(wake));
    this.loading++;
    try {
      await step();
    } finally {
      this.loading--;
      this.waiting.shift()?.();
    }
  }

  /** Removes a row; focus goes to the row that takes its place, else the one before, else "Add files". */
  private removePart(part: PartFlow): void {
    const index = this.parts.indexOf(part);
    if (index < 0) return;
    part.cancel();
    this.thumbnails.delete(part.id);
    this.parts = this.parts.filter((p) => p !== part);
    this.m = { ...this.m, added: null, refused: [], lineRefused: null };
    const next = this.parts[index] ?? this.parts[index - 1];
    this.focusAfterRender = () =>
      this.renderRoot.querySelector<HTMLElement>(
        next ? `#part-${next.id} [part~=remove-button]` : '[part~=choose-button]',
      );
  }

  /**
   * Adds every priced row to the cart in one cart call, all or nothing, and fires one `sq-add-to-cart`
   * with the lines. A line the server refuses fails its row (nothing is added); a call that failed as a
   * whole (network, busy server) says so under the button, with Try again.
   */
  private async addAll(): Promise<void> {
    // A failed row has its own Try again; one above the merchant's rule its own Request a quote.
    const ready = this.parts.filter((p) => p.addable && !p.s.error && !aboveRule({ ...this.s, ...p.s }));
    // A size in doubt holds every part back (its status is `confirm-size`); a row that failed is left out.
    const busy = this.parts.some((p) => !['priced', 'failed'].includes(partStatus(p.s)) || p.s.quantityError);
    if (!ready.length || busy || this.m.adding) return;
    const requests = ready.map((p) => p.cartRequest()!);
    this.m = { ...this.m, adding: true, added: null, cartError: null, lineRefused: null };
    for (const p of ready) p.patch({ adding: true, added: null });
    try {
      const { lines } = await this.client!.addLinesToCart(requests);
      const details = ready.map((p, i) => p.addedToCart(lines[i]!));
      this.m = { ...this.m, adding: false, added: details.length };
      await this.deliver(details, { lines: details }, (taken) => {
        for (const p of ready) p.patch({ reserved: !taken });
        this.m = { ...this.m, reserved: !taken };
        if (!taken)
          this.openNoCartRequest(
            this.linesRequest,
            'all',
            lines.map((l) => ({
              body: { file_id: l.file_id, quote_id: l.quote_id, quantity: l.quantity },
              file_id: l.file_id,
              quote_id: l.quote_id,
            })),
          );
      });
    } catch (e) {
      for (const p of ready) p.patch({ adding: false });
      const err = toWidgetError(e);
      const refused = err.line === null ? undefined : ready[err.line];
      this.m = { ...this.m, adding: false, lineRefused: refused?.id ?? null };
      // An expired or stale price is a refusal the row can mend itself: Try again prices it afresh.
      if (refused && REPRICE.has(err.code)) refused.fail('quote', new WidgetError(err.code, err.message, true));
      else if (refused) refused.fail('cart', err);
      else {
        this.m = { ...this.m, cartError: { ...err.detail, stage: 'cart' } };
        this.emit('sq-error', err.detail);
      }
    }
  }

  /** "Try again" on a row: its upload or quote; after a refused cart line, every priced row again, all or nothing. */
  private async retryPart(part: PartFlow): Promise<void> {
    if (part.s.error?.stage !== 'cart') return part.retry();
    part.patch({ error: null });
    await this.addAll();
  }

  private drawThumbnail(part: PartFlow): void {
    if (!part.parsed || !part.s.model || !this.parts.includes(part)) return;
    if (!this.thumbnailer && !this.s.previewUnavailable) {
      try {
        this.thumbnailer = new Preview(themeColors(this));
        this.thumbnailer.resize(256, 256);
      } catch {
        this.patch({ previewUnavailable: true });
      }
    }
    const t = this.thumbnailer;
    if (!t) return;
    t.setModel(part.parsed, part.s.model.fits);
    t.setModelColor(swatchOf(this.s.config, part.s.selection));
    this.thumbnails.set(part.id, t.snapshot(128));
    t.clearModel();
    this.requestUpdate();
  }

  // ---- preview ---------------------------------------------------------------------------------

  private showModel(): void {
    const preview = this.ensurePreview();
    const { parsed, s } = this.single;
    if (!preview || !parsed || !s.model) return;
    preview.setModel(parsed, s.model.fits);
    preview.setModelColor(swatchOf(this.s.config, s.selection));
    const label = `3D preview of ${s.model.name}, ${dimensions(s.model.size, this.s.locale)}. Arrow keys rotate, plus and minus zoom, 0 resets the view.`;
    preview.canvas.setAttribute('aria-label', label);
    this.requestUpdate();
  }

  private ensurePreview(): Preview | null {
    if (this.preview || this.s.previewUnavailable) return this.preview;
    try {
      this.preview = new Preview(themeColors(this));
    } catch {
      this.patch({ previewUnavailable: true });
      return null;
    }
    const canvas = this.preview.canvas;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('tabindex', '0');
    canvas.setAttribute('part', 'canvas');
    if (this.s.config) this.preview.setBuildVolume(this.s.config.build_volume);
    return this.preview;
  }

  private viewKey(e: KeyboardEvent): void {
    const p = this.preview;
    if (!p || e.composedPath()[0] !== p.canvas) return;
    const step = 0.2;
    const actions: Record<string, () => void> = {
      ArrowLeft: () => p.rotate(step, 0),
      ArrowRight: () => p.rotate(-step, 0),
      ArrowUp: () => p.rotate(0, step),
      ArrowDown: () => p.rotate(0, -step),
      '+': () => p.zoom(1.25),
      '=': () => p.zoom(1.25),
      '-': () => p.zoom(0.8),
      '0': () => p.resetView(),
      Home: () => p.resetView(),
    };
    const action = actions[e.key];
    if (!action) return;
    e.preventDefault();
    action();
  }

  // ---- drag and drop ---------------------------------------------------------------------------

  private onDrag = (e: DragEvent): void => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    if (!this.s.dragging) this.patch({ dragging: true });
  };

  private onDragLeave = (e: DragEvent): void => {
    // dragleave also fires when moving between children; only leaving the element counts.
    if (!this.contains(e.relatedTarget as Node | null) && !this.renderRoot.contains(e.relatedTarget as Node | null))
      this.patch({ dragging: false });
  };

  private onDrop = (e: DragEvent): void => {
    e.preventDefault();
    this.patch({ dragging: false });
    const files = [...(e.dataTransfer?.files ?? [])];
    if (this.multiple) void this.addFiles(files);
    else if (files[0]) void this.load(files[0]);
  };

  // ---- plumbing --------------------------------------------------------------------------------

  /** What a part reaches of the element: the shared client and configuration, the 3D view, the events. */
  private get host(): PartHost {
    const el = this;
    return {
      get client() {
        return el.client;
      },
      get config() {
        return el.s.config;
      },
      get locale() {
        return el.s.locale;
      },
      changed: () => this.requestUpdate(),
      showModel: (part) => (this.multiple ? this.drawThumbnail(part) : this.showModel()),
      recolor: (part) =>
        this.multiple
          ? this.drawThumbnail(part)
          : this.preview?.setModelColor(swatchOf(this.s.config, part.s.selection)),
      thumbnail: (part) => (this.multiple ? (this.thumbnails.get(part.id) ?? '') : this.snapshot(128)),
      emit: (type, detail) => this.emit(type, detail),
    };
  }

  private readonly handlers: Handlers = {
    choose: () => {
      if (!this.single.s.parsing) (this.renderRoot.querySelector('#file') as HTMLInputElement).click();
    },
    fileChosen: (e) => {
      const input = e.target as HTMLInputElement;
      const file = input.files?.[0];
      input.value = ''; // choosing the same file again must fire change again
      if (file) void this.load(file);
    },
    select: (field, value) => this.single.select(field, value),
    addToCart: () => void this.addToCart(),
    rescale: () => void this.single.rescale(),
    keepUnit: () => this.single.keepUnit(),
    retry: () => this.retry(),
    viewKey: (e) => this.viewKey(e),
    zoom: (f) => this.preview?.zoom(f),
    resetView: () => this.preview?.resetView(),
    scaleTo: (percent) => void this.single.scaleTo(percent),
    kept: this.keptHandlers,
    request: {
      open: () => this.requestHandlers(this.single).open(),
      submit: (e) => this.requestHandlers(this.single).submit(e),
    },
    compare: () => this.single.comparison.toggle(),
  };

  private readonly partsHandlers: PartsHandlers = {
    choose: () => (this.renderRoot.querySelector('#file') as HTMLInputElement).click(),
    filesChosen: (e) => {
      const input = e.target as HTMLInputElement;
      const files = [...(input.files ?? [])];
      input.value = '';
      void this.addFiles(files);
    },
    select: (part: PartFlow, field: keyof Selection, value: string) => {
      this.m = { ...this.m, added: null, cartError: null, lineRefused: null };
      part.select(field, value);
    },
    rescale: (part) => void part.rescale(),
    keepUnit: (part) => part.keepUnit(),
    scaleTo: (part, percent) => void part.scaleTo(percent),
    compare: (part) => part.comparison.toggle(),
    keep: (part) => void this.keepQuote(part, `p${part.id}-kept-link`),
    copyLink: (part) =>
      void part.keeper.copy(this.renderRoot.querySelector<HTMLTextAreaElement>(`#p${part.id}-kept-link`)),
    downloadPdf: (part, token) => void this.downloadPdf(token, part),
    retry: (part) => void this.retryPart(part),
    remove: (part) => this.removePart(part),
    addAll: () => void this.addAll(),
    retryCart: () => {
      this.m = { ...this.m, cartError: null };
      void this.addAll();
    },
    retryConfig: () => this.retry(),
    request: (part) => {
      const view = this.requestView(part, { ...this.s, ...part.s });
      return view && { ...view, handlers: this.requestHandlers(part) };
    },
    linesRequest: () => {
      const { state, count } = this.linesRequest;
      // About the lines of the last Add all: anything changed since (a choice, a row) closes it, as it ends the note.
      if (!state || !this.m.added || !this.m.reserved) return null;
      return { state, count, handlers: this.noCartHandlers(this.linesRequest, 'all') };
    },
  };

  private patch(change: Partial<ElementState>): void {
    this.s = { ...this.s, ...change };
  }

  private failConfig(e: unknown): void {
    const err = toWidgetError(e);
    warnMerchant(err, this.key ?? '');
    this.patch({ configError: { ...err.detail, stage: 'config' } });
    this.emit('sq-error', err.detail);
  }

  private emit<K extends PartEvent>(type: K, detail: SliceQuoteEventDetails[K]): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

function notConfigured(): WidgetError {
  return new WidgetError('not_configured', 'The widget needs its api and key attributes.', false);
}

function themeColors(host: HTMLElement) {
  const style = getComputedStyle(host);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    model: read('--sq-model-color', '#f97316'),
    plate: read('--sq-plate-color', '#e5e7eb'),
    grid: read('--sq-grid-color', '#6b7280'),
    misfit: read('--sq-misfit-color', '#dc2626'),
  };
}

if (!customElements.get('slice-quote')) customElements.define('slice-quote', SliceQuote);

declare global {
  interface HTMLElementTagNameMap {
    'slice-quote': SliceQuote;
  }
  interface HTMLElementEventMap extends SliceQuoteEvents {}
}
