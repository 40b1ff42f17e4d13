// <slice-quote api="https://HOST" key="pk_..."> — the storefront widget. A shopper drops a model;
// it is parsed in a Web Worker, previewed in 3D on the printer's plate, uploaded, quoted from a
// real slice, re-quoted as options change, and added to the cart. This file is the orchestration;
// the templates are in view.ts, the scene in preview.ts, the HTTP calls in api.ts.
import { LitElement, type PropertyValues } from 'lit';
import { WidgetApi } from './api.ts';
import { toWidgetError, WidgetError } from './errors.ts';
import { dimensions, lineSummary, type CurrencyDisplay } from './format.ts';
import { parseInWorker } from './parse-client.ts';
import type { ParsedPreview } from './parse-protocol.ts';
import { Preview } from './preview.ts';
import { fetchQuote } from './quote-flow.ts';
import { checkQuantity, findMaterial, findQuality, initialSelection, lineTotal, withMaterial } from './selection.ts';
import { EMPTY_RUN, type ModelSummary, type Stage, type WidgetState } from './state.ts';
import { styles } from './styles.ts';
import type {
  AddToCartDetail,
  BuildVolume,
  ErrorDetail,
  PricedLine,
  Quote,
  QuoteDetail,
  Selection,
  WidgetConfig,
} from './types.ts';
import { renderWidget, type Handlers } from './view.ts';
import { unitOffer } from './unit-offer.ts';

const REQUOTE_DEBOUNCE_MS = 300;

export class SliceQuote extends LitElement {
  static override styles = styles;
  static override properties = {
    api: { type: String },
    key: { type: String },
    material: { type: String },
    currencyDisplay: { type: String, attribute: 'currency-display' },
    locale: { type: String },
    s: { state: true },
  };

  declare api: string | null;
  declare key: string | null;
  declare material: string | null;
  declare currencyDisplay: CurrencyDisplay | null;
  declare locale: string | null;
  declare private s: WidgetState;

  private client: WidgetApi | null = null;
  private configPromise: Promise<WidgetConfig | null> | null = null;
  private configRun: AbortController | null = null;
  private configFailed = false;
  private fileRun: AbortController | null = null;
  private quoteRun: AbortController | null = null;
  private debounce = 0;
  private sourceFile: File | null = null;
  private parsed: ParsedPreview | null = null;
  private preview: Preview | null = null;
  private readonly resize = new ResizeObserver(([entry]) =>
    this.preview?.resize(entry.contentRect.width, entry.contentRect.height),
  );
  private observed: Element | null = null;

  constructor() {
    super();
    this.api = this.key = this.material = this.currencyDisplay = this.locale = null;
    this.s = {
      ...EMPTY_RUN,
      config: null,
      selection: null,
      quantityError: null,
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
    return this.s.config;
  }

  /** The quote currently shown, or null. */
  get quote(): Quote | null {
    return this.s.quote;
  }

  /** Takes a model file as if the shopper had dropped it. */
  async load(file: File): Promise<void> {
    this.cancelRuns();
    const run = new AbortController();
    this.fileRun = run;
    this.sourceFile = file;
    this.parsed = null;
    this.preview?.clearModel();
    this.patch({ ...EMPTY_RUN, parsing: true });
    const config = await this.ensureConfig();
    if (run.signal.aborted) return;
    if (!config) {
      // ensureConfig has shown why (unreachable service, unknown key, origin not allowed); the shopper can
      // drop the file again or press Try again, which reloads the configuration and then takes the file.
      this.patch({ parsing: false });
      if (!this.configPromise)
        this.fail('config', new WidgetError('not_configured', 'The widget needs its api and key attributes.', false));
      return;
    }
    try {
      if (file.size > config.max_upload_bytes) throw tooLarge(file.size, config.max_upload_bytes);
      const parsed = await parseInWorker(file, config.max_upload_bytes, run.signal);
      this.parsed = parsed;
      const model = summarize(file.name, parsed, config.build_volume);
      this.patch({ parsing: false, model });
      this.showModel();
      if (!model.fits) throw doesNotFit(model.size, config.build_volume);
    } catch (e) {
      if (run.signal.aborted) return;
      this.patch({ parsing: false });
      this.fail('file', e);
      return;
    }
    await this.upload(run);
  }

  /** A square PNG data URL of the 3D view ('' without one); the add-to-cart thumbnail. */
  snapshot(size = 128): string {
    return this.preview && this.s.model ? this.preview.snapshot(size) : '';
  }

  /** Back to the empty drop zone. */
  reset(): void {
    this.cancelRuns();
    this.sourceFile = this.parsed = null;
    this.preview?.clearModel();
    this.patch({ ...EMPTY_RUN });
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.parsed && !this.preview) this.showModel();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    // WebGL contexts are scarce (browsers keep ~16): give ours back; it is rebuilt on reconnect.
    this.resize.disconnect();
    this.observed = null;
    this.preview?.dispose();
    this.preview = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('api') || changed.has('key')) && this.api && this.key) {
      this.client = new WidgetApi(this.api, this.key);
      void this.loadConfig();
    }
    if (changed.has('material') && this.s.config && this.s.selection && this.material) {
      const m = findMaterial(this.s.config, this.material);
      if (m) this.select('material', m.name);
    }
    if (changed.has('locale') || changed.has('currencyDisplay')) {
      this.s = { ...this.s, locale: this.locale ?? undefined, currencyDisplay: this.currencyDisplay ?? 'symbol' };
    }
  }

  protected override render() {
    return renderWidget(this.s, this.s.model ? (this.preview?.canvas ?? null) : null, this.handlers);
  }

  /**
   * Keeps keyboard focus inside the widget when a render removes or disables the focused control (the
   * drop zone's button once the model is shown, "Try again" once it worked): focus moves to the control
   * that took its place, else to the price, instead of falling to the page's body.
   */
  protected override update(changed: PropertyValues<this>): void {
    const focused = (this.renderRoot as ShadowRoot).activeElement as HTMLElement | null;
    super.update(changed);
    if (!focused || (focused.isConnected && !(focused as HTMLButtonElement).disabled)) return;
    const sameRole = focused.getAttribute('part')?.includes('choose-button')
      ? this.renderRoot.querySelector<HTMLElement>('[part~=choose-button]')
      : null;
    const target = sameRole ?? this.renderRoot.querySelector<HTMLElement>('[part~=price]');
    target?.focus({ preventScroll: true });
  }

  protected override updated(): void {
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
    this.patch({ config: null, selection: null, error: this.s.error?.stage === 'config' ? null : this.s.error });
    this.configPromise = this.client!.config(run.signal).then(
      (config) => {
        if (run.signal.aborted) return null;
        this.patch({ config, selection: initialSelection(config, this.material) });
        this.preview?.setBuildVolume(config.build_volume);
        return config;
      },
      (e) => {
        if (run.signal.aborted) return null;
        this.configFailed = true;
        this.fail('config', e);
        return null;
      },
    );
    return this.configPromise;
  }

  private async upload(run: AbortController): Promise<void> {
    this.patch({ uploadProgress: 0, error: null });
    try {
      const ticket = await this.client!.uploadTicket(run.signal);
      const file = await this.client!.upload(
        ticket,
        this.sourceFile!,
        (f) => this.patch({ uploadProgress: f }),
        run.signal,
      );
      this.patch({ file, uploadProgress: null });
    } catch (e) {
      if (run.signal.aborted) return;
      this.patch({ uploadProgress: null });
      this.fail('upload', e);
      return;
    }
    this.scheduleQuote(0);
  }

  /** Every option change lands here; only the last of a quick series reaches the server. */
  private scheduleQuote(delay = REQUOTE_DEBOUNCE_MS): void {
    clearTimeout(this.debounce);
    this.quoteRun?.abort();
    if (!this.s.file) return;
    this.patch({ quoting: 0, added: null, error: null });
    this.debounce = window.setTimeout(() => void this.quoteNow(), delay);
  }

  private async quoteNow(): Promise<void> {
    const run = new AbortController();
    this.quoteRun = run;
    const { file, selection } = this.s;
    try {
      const quote = await fetchQuote(
        this.client!,
        file!.file_id,
        selection!,
        (p) => this.patch({ quoting: p }),
        run.signal,
      );
      if (run.signal.aborted) return;
      this.patch({ quote, quoting: null });
      this.emit('sq-quote', this.quoteDetail());
    } catch (e) {
      if (run.signal.aborted) return;
      // A price for other options than the ones shown would mislead: drop it.
      this.patch({ quote: null, quoting: null });
      this.fail('quote', e);
    }
  }

  private async addToCart(): Promise<void> {
    const { quote, file, selection, model } = this.s;
    if (!quote || !file || !selection || this.s.adding || this.s.quoting !== null || this.s.quantityError) return;
    this.patch({ adding: true, added: null, error: null });
    try {
      // The server fires widget.added_to_cart with the authoritative quote; this event is for the page.
      const line = await this.client!.addToCart(quote.quote_id, selection.quantity);
      const { cached: _cached, ...priced } = this.quoteDetail();
      const cartLine: PricedLine = {
        ...priced,
        quantity: line.quantity,
        unit_price: line.unit_price,
        total_price: line.total_price,
        currency: line.currency,
        expires_at: line.expires_at,
        signature: line.signature,
      };
      const detail: AddToCartDetail = {
        ...cartLine,
        file_name: model?.name ?? file.name,
        subtotal: line.subtotal,
        minimum_line_adjustment: line.minimum_line_adjustment,
        summary: lineSummary(cartLine, this.s.locale),
        thumbnail: this.snapshot(128),
      };
      this.patch({ adding: false, added: line });
      this.emit('sq-add-to-cart', detail);
    } catch (e) {
      this.patch({ adding: false });
      this.fail('cart', e);
    }
  }

  /** The shopper accepted the unit offer: the server re-reads the upload, the preview and price follow. */
  private async rescale(): Promise<void> {
    const { file, model, config } = this.s;
    const offer = unitOffer(file);
    if (!file || !offer || !config || this.s.rescaling) return;
    this.patch({ rescaling: true, error: null });
    try {
      const scaled = await this.client!.rescale(file.file_id, offer.request);
      if (this.parsed && model) {
        this.parsed = scaleParsed(this.parsed, offer.factor);
        this.patch({ model: summarize(model.name, this.parsed, config.build_volume) });
        this.showModel();
      }
      this.patch({ file: scaled, rescaling: false });
    } catch (e) {
      this.patch({ rescaling: false });
      this.fail('file', e);
      return;
    }
    this.scheduleQuote(0);
  }

  private retry(): void {
    const stage: Stage | undefined = this.s.error?.stage;
    this.patch({ error: null });
    if (stage === 'config') {
      void this.loadConfig().then((config) => {
        if (config && this.sourceFile && !this.s.model) void this.load(this.sourceFile);
      });
    } else if (stage === 'upload' && this.fileRun) void this.upload(this.fileRun);
    else if (stage === 'quote') this.scheduleQuote(0);
    else if (stage === 'cart') void this.addToCart();
  }

  private select(field: keyof Selection, raw: string): void {
    const { config, selection } = this.s;
    if (!config || !selection) return;
    if (field === 'quantity') {
      const checked = checkQuantity(config, raw);
      if ('error' in checked) {
        // The typed value stays in the field, next to what is wrong with it; no price is shown for another quantity.
        this.patch({ quantityError: checked.error, added: null });
        return;
      }
      const changed = checked.quantity !== selection.quantity || this.s.quantityError !== null;
      this.patch({
        selection: { ...selection, quantity: checked.quantity },
        quantityError: null,
        added: changed ? null : this.s.added,
      });
      // The price per piece does not change with the quantity: no new slice, only a new total.
      if (changed && this.s.quote && this.s.quoting === null) this.emit('sq-quote', this.quoteDetail());
      return;
    }
    const next =
      field === 'material'
        ? withMaterial(config, selection, raw)
        : { ...selection, [field]: field === 'infill' ? Number(raw) : raw };
    this.patch({ selection: next });
    this.preview?.setModelColor(next.color);
    this.scheduleQuote();
  }

  // ---- preview ---------------------------------------------------------------------------------

  private showModel(): void {
    const preview = this.ensurePreview();
    if (!preview || !this.parsed || !this.s.model) return;
    preview.setModel(this.parsed, this.s.model.fits);
    preview.setModelColor(this.s.selection?.color ?? '');
    const label = `3D preview of ${this.s.model.name}, ${dimensions(this.s.model.size, this.s.locale)}. Arrow keys rotate, plus and minus zoom, 0 resets the view.`;
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
    const file = e.dataTransfer?.files[0];
    if (file) void this.load(file);
  };

  // ---- plumbing --------------------------------------------------------------------------------

  private readonly handlers: Handlers = {
    choose: () => {
      if (!this.s.parsing) (this.renderRoot.querySelector('#file') as HTMLInputElement).click();
    },
    fileChosen: (e) => {
      const input = e.target as HTMLInputElement;
      const file = input.files?.[0];
      input.value = ''; // choosing the same file again must fire change again
      if (file) void this.load(file);
    },
    select: (field, value) => this.select(field, value),
    addToCart: () => void this.addToCart(),
    rescale: () => void this.rescale(),
    retry: () => this.retry(),
    viewKey: (e) => this.viewKey(e),
    zoom: (f) => this.preview?.zoom(f),
    resetView: () => this.preview?.resetView(),
  };

  private cancelRuns(): void {
    clearTimeout(this.debounce);
    this.fileRun?.abort();
    this.quoteRun?.abort();
  }

  private patch(change: Partial<WidgetState>): void {
    this.s = { ...this.s, ...change };
  }

  private fail(stage: Stage, e: unknown): void {
    const err = toWidgetError(e);
    this.patch({ error: { ...err.detail, stage } });
    this.emit('sq-error', err.detail);
  }

  private quoteDetail(): QuoteDetail {
    const { quote, file, selection, config } = this.s;
    const q = quote!,
      sel = selection!;
    const quality = findQuality(config!, q.choices?.quality ?? sel.quality);
    return {
      quote_id: q.quote_id,
      file_id: file!.file_id,
      material: q.choices?.material ?? sel.material,
      color: q.choices?.color ?? sel.color,
      quality: quality?.id ?? sel.quality,
      quality_label: quality?.label ?? '',
      layer_height: quality?.layer_height ?? 0,
      fill_density: q.choices?.infill ?? sel.infill,
      quantity: sel.quantity,
      expires_at: q.expires_at,
      unit_price: q.total_price,
      total_price: lineTotal(q, sel.quantity, config!.minimum_line_price),
      currency: q.currency,
      estimated_time: q.estimated_time,
      estimated_time_seconds: q.estimated_time_seconds,
      filament_weight: q.filament_weight,
      placement: q.placement ?? null,
      signature: q.signature,
      cached: q.cached ?? false,
    };
  }

  private emit(
    type: 'sq-quote' | 'sq-add-to-cart' | 'sq-error',
    detail: QuoteDetail | AddToCartDetail | ErrorDetail,
  ): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

function summarize(name: string, parsed: ParsedPreview, volume: BuildVolume): ModelSummary {
  // The server turns or lays down a model that does not fit as uploaded, and may lay a long one diagonally
  // across the plate: only what cannot fit either way is refused here, before any upload.
  const [short, , long] = [...parsed.size].sort((a, b) => a - b);
  const [low, mid, high] = [volume.x, volume.y, volume.z].sort((a, b) => a - b);
  const fits = short <= low && long <= Math.hypot(mid, high);
  return { name, size: parsed.size, volume: parsed.volume, triangles: parsed.triangles, fits };
}

/** The preview of a model rescaled on the server by `factor`. */
function scaleParsed(p: ParsedPreview, factor: number): ParsedPreview {
  const grow = (v: [number, number, number]) => v.map((x) => x * factor) as [number, number, number];
  return {
    ...p,
    positions: p.positions.map((x) => x * factor),
    size: grow(p.size),
    min: grow(p.min),
    volume: p.volume * factor ** 3,
  };
}

function tooLarge(size: number, limit: number): WidgetError {
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  return new WidgetError(
    'file_too_large',
    `The file is ${mb(size)}; this shop accepts files up to ${mb(limit)}.`,
    false,
  );
}

function doesNotFit(size: [number, number, number], v: BuildVolume): WidgetError {
  return new WidgetError(
    'does_not_fit',
    `The model (${dimensions(size)}) does not fit the printer's ${dimensions([v.x, v.y, v.z])} build volume.`,
    false,
  );
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
  interface HTMLElementEventMap {
    'sq-quote': CustomEvent<QuoteDetail>;
    'sq-add-to-cart': CustomEvent<AddToCartDetail>;
    'sq-error': CustomEvent<ErrorDetail>;
  }
}
