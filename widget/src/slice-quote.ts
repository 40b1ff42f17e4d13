// <slice-quote api="https://HOST" key="pk_..."> — the storefront widget. A shopper drops a model;
// it is parsed in a Web Worker, previewed in 3D on the printer's plate, uploaded, quoted from a
// real slice, re-quoted as options change, and added to the cart. With `multiple`, the shopper drops
// several models, each a row with its own options and price, and adds them all to the cart at once.
// This file is the orchestration: it holds the shop's configuration and wires the parts together. One part's way to
// a price is part-flow.ts; the rows with `multiple`, several-parts.ts; kept quotes, kept-quotes.ts; Request a quote,
// part-requests.ts; the 3D view, model-view.ts; focus across renders, focus-keeper.ts. The templates are in view.ts
// and parts-view.ts, the HTTP calls in api.ts.
import { LitElement, type PropertyValues } from 'lit';
import { WidgetApi } from './api.ts';
import { handOff, postToCartUrl } from './cart-handoff.ts';
import { toWidgetError, WidgetError } from './errors.ts';
import type { PartEvent, SliceQuoteEventDetails, SliceQuoteEvents } from './events.ts';
import { FocusKeeper } from './focus-keeper.ts';
import type { CurrencyDisplay } from './format.ts';
import { type KeptHost, KeptQuotes } from './kept-quotes.ts';
import { warnMerchant } from './merchant-hints.ts';
import { ModelView, type ModelViewHost } from './model-view.ts';
import { prefetchParser } from './parse-client.ts';
import { PartFlow, type PartHost } from './part-flow.ts';
import { PartRequests, type PartRequestsHost } from './part-requests.ts';
import { type PartsHandlers, renderParts } from './parts-view.ts';
import { findMaterial, initialSelection } from './selection.ts';
import { SeveralParts, type SeveralPartsHost } from './several-parts.ts';
import type { ShopState, StageError, WidgetState } from './state.ts';
import { styles } from './styles.ts';
import type { AddToCartDetail, Quote, WidgetConfig } from './types.ts';
import { type Handlers, renderWidget, type SingleState } from './view.ts';

export { DEFAULT_MAX_PARTS, MAX_PARTS_CAP } from './several-parts.ts';

/** What the element shows besides its parts: the shop, how to write for it, and why its configuration is missing. */
type ElementState = ShopState & { configError: StageError | null };

/** The element as the files it is made of reach it (widget-host.ts). */
type ElementHost = PartHost & KeptHost & PartRequestsHost & SeveralPartsHost & ModelViewHost;

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
    shop: { state: true },
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
  declare private shop: ElementState;

  private client: WidgetApi | null = null;
  private configPromise: Promise<WidgetConfig | null> | null = null;
  private configRun: AbortController | null = null;
  private configFailed = false;
  private readonly asHost: ElementHost = this.elementHost();
  private readonly focusKeeper = new FocusKeeper(this);
  /** The 3D view of the single part, and the rows' pictures. */
  private readonly view = new ModelView(this, this.asHost);
  /** The one part without `multiple`. */
  private readonly single = new PartFlow(this.asHost, null);
  /** With `multiple`: the rows and Add all to cart. */
  private readonly several = new SeveralParts(this.asHost);
  private readonly kept = new KeptQuotes(this.asHost);
  private readonly requests = new PartRequests(this.asHost, this.single);

  constructor() {
    super();
    this.api = this.key = this.material = this.currencyDisplay = this.locale = this.maxParts = this.cartUrl = null;
    this.quoteLink = null;
    this.multiple = false;
    this.shop = {
      config: null,
      configError: null,
      dragging: false,
      previewUnavailable: false,
      locale: undefined,
      currencyDisplay: 'symbol',
    };
    this.addEventListener('dragenter', this.onDrag);
    this.addEventListener('dragover', this.onDrag);
    this.addEventListener('dragleave', this.onDragLeave);
    this.addEventListener('drop', this.onDrop);
  }

  // ---- public API ------------------------------------------------------------------------------

  /** The merchant's configuration from GET /v2/widget/config, once loaded. */
  get config(): WidgetConfig | null {
    return this.shop.config;
  }

  /** The quote currently shown, or null (always null with `multiple`: each row has its own). */
  get quote(): Quote | null {
    return this.multiple ? null : this.single.state.quote;
  }

  /** Takes a model file as if the shopper had dropped it (with `multiple`, adds it as a row). */
  async load(file: File): Promise<void> {
    if (this.multiple) return this.several.add([file]);
    const part = this.single;
    const signal = part.start(file);
    this.view.clear();
    const config = await this.ensureConfig();
    if (signal.aborted) return;
    if (!config) {
      // ensureConfig has shown why (unreachable service, unknown key, origin not allowed); the shopper can
      // drop the file again or press Try again, which reloads the configuration and then takes the file.
      part.patch({ parsing: false });
      this.configMissing();
      return;
    }
    await part.read(config, signal);
  }

  /** A square PNG data URL of the 3D view ('' without one); the add-to-cart thumbnail. */
  snapshot(size = 128): string {
    return this.single.state.model ? this.view.snapshot(size) : '';
  }

  /** Back to the empty drop zone (with `multiple`, removes every row). */
  reset(): void {
    this.single.clear();
    this.view.clear();
    this.several.reset();
    this.view.thumbnails.clear();
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('api') || changed.has('key')) && this.api && this.key) {
      this.client = new WidgetApi(this.api, this.key);
      void this.loadConfig();
      this.kept.openFromPage(this.quoteLink);
    }
    if (changed.has('material') && this.shop.config && this.single.state.selection && this.material) {
      const m = findMaterial(this.shop.config, this.material);
      if (m) this.single.select('material', m.name);
    }
    if (changed.has('locale') || changed.has('currencyDisplay')) {
      const writing = { locale: this.locale ?? undefined, currencyDisplay: this.currencyDisplay ?? 'symbol' };
      this.shop = { ...this.shop, ...writing };
    }
    if (changed.has('multiple') && this.hasUpdated) this.reset();
  }

  protected override render() {
    // A kept quote's link opens it in either widget: a row's Save or share makes such links too.
    const kept = this.kept.render();
    if (kept) return kept;
    const { several, view } = this;
    if (this.multiple)
      return renderParts(
        this.shop,
        several.parts,
        several.list,
        several.maxAllowed,
        view.thumbnails,
        this.partsHandlers,
      );
    const { single } = this;
    const shown: WidgetState = { ...this.shop, ...single.state, error: this.shop.configError ?? single.state.error };
    const s: SingleState = {
      ...shown,
      keep: single.keeper.state,
      comparing: single.comparison.open,
      prices: single.comparison.prices,
      request: this.requests.view(single, shown),
    };
    return renderWidget(s, single.state.model ? view.canvas : null, this.handlers);
  }

  // ---- the configuration -----------------------------------------------------------------------

  /** The configuration, loading it again when the last attempt failed (the cause may be gone by now). */
  private async ensureConfig(): Promise<WidgetConfig | null> {
    if (this.shop.config) return this.shop.config;
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
        this.view.setBuildVolume(config.build_volume);
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

  /** No configuration came: ensureConfig has shown why, unless the element lacks its api and key. */
  private configMissing(): void {
    if (!this.configPromise) this.failConfig(notConfigured());
  }

  private failConfig(e: unknown): void {
    const err = toWidgetError(e);
    warnMerchant(err, this.key ?? '');
    this.patch({ configError: { ...err.detail, stage: 'config' } });
    this.emit('sq-error', err.detail);
  }

  // ---- the cart --------------------------------------------------------------------------------

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

  /** "Try again": the configuration (then the files dropped without it), the cart call, or the part's step. */
  private retry(): void {
    if (this.shop.configError) {
      this.patch({ configError: null });
      void this.loadConfig().then((config) => {
        if (!config) return;
        if (this.multiple) void this.several.addPending();
        else if (this.single.sourceFile && !this.single.state.model) void this.load(this.single.sourceFile);
      });
    } else if (this.single.state.error?.stage === 'cart') {
      this.single.patch({ error: null });
      void this.addToCart();
    } else this.single.retry();
  }

  // ---- drag and drop ---------------------------------------------------------------------------

  private onDrag = (e: DragEvent): void => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    if (!this.shop.dragging) this.patch({ dragging: true });
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
    if (this.multiple) void this.several.add(files);
    else if (files[0]) void this.load(files[0]);
  };

  // ---- plumbing --------------------------------------------------------------------------------

  /**
   * What the parts, the rows, kept quotes, requests and the 3D view reach of the element: the shared client and
   * configuration, the events, renders and focus. Getters, so that each reads the element as it is at the time.
   */
  private elementHost(): ElementHost {
    const el = this;
    return {
      get client() {
        return el.client;
      },
      get config() {
        return el.shop.config;
      },
      get locale() {
        return el.shop.locale;
      },
      get currencyDisplay() {
        return el.shop.currencyDisplay;
      },
      get multiple() {
        return el.multiple;
      },
      get maxParts() {
        return el.maxParts;
      },
      get single() {
        return el.single;
      },
      get viewed() {
        return el.multiple ? null : el.single;
      },
      get previewUnavailable() {
        return el.shop.previewUnavailable;
      },
      noPreview: () => this.patch({ previewUnavailable: true }),
      changed: () => this.requestUpdate(),
      emit: (type, detail) => this.emit(type, detail),
      focusAfterRender: (selector, reveal) => this.focusKeeper.after(selector, reveal),
      deliver: (lines, detail, show) => this.deliver(lines, detail, show),
      addController: (controller) => this.addController(controller),
      removeController: (controller) => this.removeController(controller),
      showModel: (part) => (this.multiple ? this.view.drawThumbnail(part) : this.view.show(part)),
      recolor: (part) => (this.multiple ? this.view.drawThumbnail(part) : this.view.recolor(part)),
      thumbnail: (part) => (this.multiple ? (this.view.thumbnails.get(part.id) ?? '') : this.snapshot(128)),
      linkField: (id) => this.renderRoot.querySelector<HTMLTextAreaElement>(`#${id}`),
      stateOf: (part) => ({ ...this.shop, ...part.state }),
      isRow: (part) => this.several.parts.includes(part),
      forget: (part) => this.view.thumbnails.delete(part.id),
      ensureConfig: () => this.ensureConfig(),
      configMissing: () => this.configMissing(),
      newPart: (config) => new PartFlow(this.asHost, initialSelection(config, this.material)),
    };
  }

  private readonly handlers: Handlers = {
    choose: () => {
      if (!this.single.state.parsing) (this.renderRoot.querySelector('#file') as HTMLInputElement).click();
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
    viewKey: (e) => this.view.viewKey(e),
    zoom: (f) => this.view.zoom(f),
    resetView: () => this.view.resetView(),
    scaleTo: (percent) => void this.single.scaleTo(percent),
    kept: this.kept.handlers,
    request: this.requests.handlers(this.single),
    compare: () => this.single.comparison.toggle(),
  };

  private readonly partsHandlers: PartsHandlers = {
    choose: () => (this.renderRoot.querySelector('#file') as HTMLInputElement).click(),
    filesChosen: (e) => {
      const input = e.target as HTMLInputElement;
      const files = [...(input.files ?? [])];
      input.value = '';
      void this.several.add(files);
    },
    select: (part, field, value) => this.several.select(part, field, value),
    rescale: (part) => void part.rescale(),
    keepUnit: (part) => part.keepUnit(),
    scaleTo: (part, percent) => void part.scaleTo(percent),
    compare: (part) => part.comparison.toggle(),
    keep: (part) => void this.kept.keep(part, `p${part.id}-kept-link`),
    copyLink: (part) => void part.keeper.copy(this.asHost.linkField(`p${part.id}-kept-link`)),
    downloadPdf: (part, token) => void this.kept.downloadPdf(token, part),
    retry: (part) => void this.several.retry(part),
    remove: (part) => this.several.remove(part),
    addAll: () => void this.several.addAll(),
    retryCart: () => void this.several.retryCart(),
    retryConfig: () => this.retry(),
    request: (part) => {
      const view = this.requests.view(part, this.asHost.stateOf(part));
      return view && { ...view, handlers: this.requests.handlers(part) };
    },
    linesRequest: () => this.several.linesRequestView(),
  };

  private patch(change: Partial<ElementState>): void {
    this.shop = { ...this.shop, ...change };
  }

  private emit<K extends PartEvent>(type: K, detail: SliceQuoteEventDetails[K]): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

function notConfigured(): WidgetError {
  return new WidgetError('not_configured', 'The widget needs its api and key attributes.', false);
}

if (!customElements.get('slice-quote')) customElements.define('slice-quote', SliceQuote);

declare global {
  interface HTMLElementTagNameMap {
    'slice-quote': SliceQuote;
  }
  interface HTMLElementEventMap extends SliceQuoteEvents {}
}
