// One part's way from a file to a line in the cart: read in a Web Worker, checked against the build
// volume, uploaded through its own single-use upload id, priced from a real slice (re-priced as its
// options change), rescaled when the shopper accepts the unit offer, and added to the cart.
// <slice-quote> runs one of these; with `multiple`, one per row. What the parts share stays in the
// element (the host): the shop's configuration, the API client with the shopper's token, the 3D view
// and the events.
import type { ReactiveControllerHost } from 'lit';
import type { WidgetApi } from './api.ts';
import { cartLineDetail, pricedAsLine, quoteDetail, REPRICE } from './cart-line.ts';
import { ChoiceEstimates, estimateKey } from './choice-estimate.ts';
import { Countdown } from './countdown.ts';
import { toWidgetError, WidgetError } from './errors.ts';
import type { PartEvent, SliceQuoteEventDetails } from './events.ts';
import { FirstDraw } from './first-draw.ts';
import { KnownPrices } from './known-prices.ts';
import { MaterialComparison } from './material-compare.ts';
import { MeshMeasures } from './mesh-measures.ts';
import { learnOverLimit } from './over-limit.ts';
import { parseInWorker } from './parse-client.ts';
import type { ParsedPreview } from './parse-protocol.ts';
import { doesNotFit, publishedSettings, scaleParsed, summarize, tooLarge } from './part-model.ts';
import { type Sending, sendFile, uploadAtOnce } from './part-upload.ts';
import { fetchQuote } from './quote-flow.ts';
import { QuoteKeeper } from './quote-keeper.ts';
import { checkQuantity, lineTotal, withMaterial } from './selection.ts';
import { EMPTY_RUN, type PartState, type Stage } from './state.ts';
import { followTimeLeft, type TimeLeft } from './time-left.ts';
import type { AddToCartDetail, CartLine, Pricing, QuoteDetail, Selection, WidgetConfig } from './types.ts';
import { unitOffer, unitQuestion } from './unit-offer.ts';

const REQUOTE_DEBOUNCE_MS = 300;

/** What a part reaches of the element; its renders too, which the part's material comparison follows. */
export interface PartHost extends Pick<ReactiveControllerHost, 'addController' | 'removeController'> {
  readonly client: WidgetApi | null;
  readonly config: WidgetConfig | null;
  readonly locale: string | undefined;
  /** The part's state changed: render it. */
  changed(part: PartFlow): void;
  /** The part's model was read or rescaled: show it (3D view or thumbnail). */
  showModel(part: PartFlow): void;
  /** The part's colour changed. */
  recolor(part: PartFlow): void;
  /** A 128 × 128 PNG data URL of the part for the cart line; '' without 3D. */
  thumbnail(part: PartFlow): string;
  emit<K extends PartEvent>(type: K, detail: SliceQuoteEventDetails[K]): void;
}

let nextId = 1;

export class PartFlow {
  /** Stable for the part's life (ids of its row's controls), unlike its position in the list. */
  readonly id = nextId++;
  state: PartState;
  sourceFile: File | null = null;
  parsed: ParsedPreview | null = null;
  private fileRun: AbortController | null = null;
  /** The estimator's measurements of the file's mesh, at the part's size (mesh-measures.ts). */
  private readonly mesh = new MeshMeasures();
  /** Estimates of the choices the shopper made (choice-estimate.ts), the first one included. */
  private readonly estimates = new ChoiceEstimates({
    client: () => this.host.client,
    config: () => this.host.config,
    current: () => (this.state.selection ? { selection: this.state.selection, scale: this.mesh.scale } : null),
    measure: (stage, settings) => this.mesh.measure(stage, settings, this.host.config),
    estimated: (key) => this.showEstimate(key),
    coarseSettled: () => this.firstDraw.figureShown(),
  });
  /** The 3D preview waits for the first figure on screen (first-draw.ts). */
  private readonly firstDraw = new FirstDraw();
  /** The quote in flight has an estimate of its own (the server's, from the placed mesh): it wins. */
  private quoteEstimated = false;
  /** What the shopper is shown of the time left (time-left.ts), and the timer that counts it down. */
  private timeLeft: TimeLeft | null = null;
  private readonly countdown = new Countdown(() => {
    if (this.state.pricing) this.patch({ pricing: { ...this.state.pricing, now: Date.now() } });
  });
  private quoteRun: AbortController | null = null;
  private debounce = 0;
  /** The exact prices this part already has (known-prices.ts). */
  private readonly priced = new KnownPrices();
  /** "Compare all materials" of this part (material-compare.ts). */
  readonly comparison = new MaterialComparison(
    () => this.host.changed(this),
    () => ({ client: this.host.client, part: this.state }),
  );
  /** "Save or share this quote" of this part (quote-keeper.ts). */
  readonly keeper = new QuoteKeeper(() => this.host.changed(this));

  constructor(
    private readonly host: PartHost,
    selection: Selection | null,
  ) {
    this.state = { ...EMPTY_RUN, selection, quantityError: null };
    host.addController(this.comparison);
  }

  /** The part leaves the widget (a removed row): whatever runs stops, and its comparison stops following renders. */
  remove(): void {
    this.cancel();
    this.host.removeController(this.comparison);
  }

  /** Starts over with `file`: whatever ran for the previous file stops. The signal aborts with the next start. */
  start(file: File): AbortSignal {
    this.cancel();
    const run = new AbortController();
    this.fileRun = run;
    this.forgetFile(file);
    this.patch({ ...EMPTY_RUN, parsing: true });
    return run.signal;
  }

  /**
   * Reads and checks the file given to start() in a worker while it is uploaded, shows an estimate from the
   * browser's measurements as soon as the shop has priced them, and prices the part once it has arrived. A file the
   * reading refuses is not kept: its upload stops, or is deleted if it has already arrived.
   */
  async read(config: WidgetConfig, signal: AbortSignal): Promise<void> {
    const file = this.sourceFile!;
    if (file.size > config.max_upload_bytes) {
      this.patch({ parsing: false });
      return this.fail('file', tooLarge(file.size, config.max_upload_bytes));
    }
    // The upload starts now, beside the parse: the server has the file, and slices it, that much sooner.
    const sending = this.send();
    const parse = parseInWorker(file, config.max_upload_bytes, publishedSettings(config), signal);
    this.mesh.reset(parse);
    try {
      const parsed = await parse.parsed;
      this.parsed = parsed;
      const model = summarize(file.name, parsed, config.build_volume);
      this.patch({ parsing: false, model });
      if (!model.fits) {
        this.host.showModel(this);
        throw doesNotFit(model.size, config.build_volume);
      }
    } catch (e) {
      if (signal.aborted) return;
      sending.drop();
      this.patch({ parsing: false, uploadProgress: null });
      this.fail('file', e);
      return;
    }
    // The first estimate, from the browser's own measurements, while the upload runs; the 3D preview waits for its
    // coarse figure (first-draw.ts).
    this.firstDraw.wait(() => this.host.showModel(this), signal);
    if (this.multiColour) this.firstDraw.figureShown();
    else void this.estimates.request(signal);
    await this.landed(sending);
  }

  /** Back to nothing, keeping the choices. */
  clear(): void {
    this.cancel();
    this.forgetFile(null);
    this.patch({ ...EMPTY_RUN });
  }

  /** What was known of the last file goes: its model, measurements, estimates and prices. */
  private forgetFile(next: File | null): void {
    this.sourceFile = next;
    this.parsed = null;
    this.mesh.reset(null);
    this.estimates.clear();
    this.priced.clear();
  }

  /** Stops whatever runs (a removed row, a new file). */
  cancel(): void {
    clearTimeout(this.debounce);
    this.fileRun?.abort();
    this.quoteRun?.abort();
    this.comparison.stop();
    this.countdown.stop();
  }

  /** One upload of the source file under the file's run; drop() stops it, or deletes the file once it has arrived. */
  private send(): Sending {
    this.patch({ uploadProgress: 0, error: null });
    return sendFile(this.host.client!, this.sourceFile!, this.fileRun!.signal, {
      report: (sent) => this.patch({ uploadProgress: sent }),
      last: () => this.state.uploadProgress ?? 0,
    });
  }

  /** The upload has arrived: the part is priced; or it failed, and the row says why. */
  private async landed(sending: Sending): Promise<void> {
    const run = this.fileRun!;
    try {
      const file = await sending.done;
      this.patch({ file, uploadProgress: null });
    } catch (e) {
      if (run.signal.aborted) return;
      // An estimate shown while the file was on its way goes with it: there is nothing to price.
      this.patch({ uploadProgress: null, quoting: null, pricing: null });
      this.fail('upload', e);
      return;
    }
    this.scheduleQuote(0);
  }

  private upload(): Promise<void> {
    return this.landed(this.send());
  }

  /**
   * An estimate of the choices now selected arrived (the browser's measurements priced by the shop, docs/instant-price.md):
   * shown, marked, until the quote's own estimate or its exact price replaces it. Too late when the exact price for
   * these choices is shown, the quote has an estimate of its own, the part failed, or the shopper chose otherwise.
   */
  private showEstimate(key: string): void {
    const { selection, quote, quoting, error } = this.state;
    if (!selection || error || key !== estimateKey(selection, this.mesh.scale)) return;
    if ((quote && quoting === null) || this.state.holding || this.quoteEstimated) return;
    const estimate = this.estimates.get(selection, this.mesh.scale);
    if (!estimate || this.state.pricing?.estimate === estimate) return;
    const pricing = this.state.pricing ?? { percent: 0, estimate: null, step: null, reading: null };
    this.patch({ quoting: quoting ?? 0, pricing: { ...pricing, estimate } });
    this.host.emit('sq-estimate', { file_id: this.state.file?.file_id ?? null, estimate });
  }

  /**
   * Every option change lands here; only the last of a quick series reaches the server. `holds`: the price shown
   * holds for the new choices too (a colour of the same material slices and prices alike): it stays while they are
   * quoted.
   */
  scheduleQuote(delay = REQUOTE_DEBOUNCE_MS, holds = false): void {
    clearTimeout(this.debounce);
    this.quoteRun?.abort();
    this.quoteEstimated = false;
    this.timeLeft = null;
    const { file, selection } = this.state;
    if (!file || !selection) return;
    const known = this.priced.get(this.state);
    if (known) {
      this.patch({ quote: known, holding: false, quoting: null, pricing: null, added: null, error: null });
      this.host.emit('sq-quote', this.quoteDetail());
      return;
    }
    // The old price is not shown as if it were this choice's: the choice's estimate is, at once when it is known,
    // else as soon as the browser has measured it; the exact price follows from the slice.
    // The price shown: the exact one (nothing re-pricing it), or one already held through an earlier colour change.
    const holding =
      holds && !!this.state.quote && (this.state.quoting === null || this.state.holding) && !this.state.error;
    const estimate = holding ? null : this.estimates.get(selection, this.mesh.scale);
    this.patch({
      quoting: 0,
      holding,
      added: null,
      error: null,
      pricing: estimate ? { percent: 0, estimate, step: null, reading: null } : null,
    });
    if (estimate) this.host.emit('sq-estimate', { file_id: file.file_id, estimate });
    // A coarse estimate known is shown, and the fine one still measured.
    const settled = this.estimates.settled(selection, this.mesh.scale);
    if (!holding && !settled && this.fileRun && !this.multiColour) void this.estimates.request(this.fileRun.signal);
    this.debounce = window.setTimeout(() => void this.quoteNow(), delay);
  }

  private async quoteNow(): Promise<void> {
    const run = new AbortController();
    this.quoteRun = run;
    const { file, selection } = this.state;
    try {
      const quote = await fetchQuote(
        this.host.client!,
        file!.file_id,
        selection!,
        (p) => run.signal.aborted || this.onPricing(p, selection!),
        run.signal,
      );
      if (run.signal.aborted) return;
      this.priced.keep(this.state, quote);
      this.patch({ quote, holding: false, quoting: null, pricing: null });
      this.host.emit('sq-quote', this.quoteDetail());
    } catch (e) {
      if (run.signal.aborted) return;
      // A price for other options than the ones shown would mislead: drop it.
      this.patch({ quote: null, holding: false, quoting: null, pricing: null });
      this.fail('quote', e);
    }
  }

  /**
   * Progress of a slice; a new estimate is told to the page too (`sq-estimate`: never a price to sell). The
   * browser's estimate of these choices stays while the quote has none of its own. The time left shown follows the
   * server's figure as time-left.ts allows: down at once, up only with a reason, counting down in between.
   */
  private onPricing(progress: Pricing, selection: Selection): void {
    if (progress.estimate) {
      this.quoteEstimated = true;
      this.estimates.keep(selection, this.mesh.scale, progress.estimate);
    }
    const estimate = progress.estimate ?? this.estimates.get(selection, this.mesh.scale);
    const fresh = estimate && estimate !== this.state.pricing?.estimate;
    const now = Date.now();
    if (progress.reading) this.timeLeft = followTimeLeft(this.timeLeft, progress.reading, now);
    this.patch({ quoting: progress.percent, pricing: { ...progress, estimate, timeLeft: this.timeLeft, now } });
    if (fresh && this.state.file)
      this.host.emit('sq-estimate', { file_id: this.state.file.file_id, estimate: estimate! });
  }

  /**
   * A multi-colour 3MF (the parse's `multi_material` warning): its one-filament estimate would mislead, so none is
   * shown; the server refuses its price (`multi_material`) and the shopper is offered Request a quote.
   */
  get multiColour(): boolean {
    return !!this.parsed?.warnings.some((w) => w.code === 'multi_material');
  }

  /** The size question (unit offer) waits for the shopper's answer: nothing is sold at a size in doubt. */
  get unitPending(): boolean {
    return unitQuestion(this.state.file, this.state.unitKept) !== null;
  }

  /** Whether the cart call may go now: priced, the size settled, the quantity valid, nothing running. */
  get addable(): boolean {
    const { quote, file, selection } = this.state;
    return (
      !!quote &&
      !!file &&
      !!selection &&
      !this.state.adding &&
      this.state.quoting === null &&
      !this.state.quantityError &&
      !this.unitPending
    );
  }

  /** The shopper answered the unit offer with "Keep this size". */
  keepUnit(): void {
    this.patch({ unitKept: true });
  }

  /** POST /v2/widget/cart for this part: the cart line as `sq-add-to-cart` reports it, or null (the row shows why). */
  async addToCart(): Promise<AddToCartDetail | null> {
    const request = this.cartRequest();
    if (!request) return null;
    this.patch({ adding: true, added: null, error: null });
    try {
      // The server fires widget.added_to_cart with the authoritative quote; the event is for the page.
      return this.addedToCart(await this.host.client!.addToCart(request.quote_id, request.quantity));
    } catch (e) {
      this.patch({ adding: false });
      this.refusedByCart(toWidgetError(e));
      return null;
    }
  }

  /** The cart refused this part's line: an expired or stale price, which Try again prices afresh, or the cart's own. */
  refusedByCart(err: WidgetError): void {
    if (REPRICE.has(err.code)) this.fail('quote', new WidgetError(err.code, err.message, true));
    else this.fail('cart', err);
  }

  /** What the cart call sends for this part, or null when it may not go now (see `addable`). */
  cartRequest(): { quote_id: string; quantity: number } | null {
    return this.addable ? { quote_id: this.state.quote!.quote_id, quantity: this.state.selection!.quantity } : null;
  }

  /** The server accepted this part's line: the row says so; the line as `sq-add-to-cart` reports it. */
  addedToCart(line: CartLine): AddToCartDetail {
    const { file, model } = this.state;
    const priced = pricedAsLine(this.quoteDetail(), line);
    const detail = cartLineDetail(priced, line, model?.name ?? file!.name, this.host.locale, this.host.thumbnail(this));
    this.patch({ adding: false, added: line });
    return detail;
  }

  /** The shopper accepted the unit offer: the server re-reads the upload, the preview and price follow. */
  async rescale(): Promise<void> {
    const { file, model } = this.state;
    const config = this.host.config;
    const offer = unitOffer(file);
    if (!file || !offer || !config || this.state.rescaling) return;
    await this.rescaling(async () => {
      const scaled = await this.host.client!.rescale(file.file_id, offer.request);
      this.mesh.scale *= offer.factor;
      if (this.parsed && model) {
        this.parsed = scaleParsed(this.parsed, offer.factor);
        this.patch({ model: summarize(model.name, this.parsed, config.build_volume) });
        this.host.showModel(this);
      }
      this.patch({ file: scaled, rescaling: false });
    });
  }

  /** Runs a rescale on the server (`step`), then prices the part at its new size; a failure is the file's. */
  private async rescaling(step: () => Promise<void>): Promise<void> {
    this.patch({ rescaling: true, error: null });
    try {
      await step();
    } catch (e) {
      this.patch({ rescaling: false });
      this.fail('file', e);
      return;
    }
    this.scheduleQuote(0);
  }

  /**
   * The shopper scaled a part too big for the printer to `percent` of its size: checked here first, uploaded if
   * the widget had refused it before upload, rescaled on the server (POST /v2/file/scale), then priced.
   */
  async scaleTo(percent: number): Promise<void> {
    const { model } = this.state;
    const config = this.host.config;
    if (!this.parsed || !model || !config || this.state.rescaling) return;
    const factor = percent / 100;
    const parsed = scaleParsed(this.parsed, factor);
    const scaledModel = summarize(model.name, parsed, config.build_volume);
    if (!scaledModel.fits) return this.fail('file', doesNotFit(scaledModel.size, config.build_volume));
    await this.rescaling(async () => {
      const file = this.state.file ?? (await uploadAtOnce(this.host.client!, this.sourceFile!));
      const scaled = await this.host.client!.rescale(file.file_id, { scale: +(file.scale * factor).toPrecision(6) });
      this.parsed = parsed;
      this.mesh.scale *= factor;
      this.patch({ file: scaled, model: scaledModel, rescaling: false });
      this.host.showModel(this);
    });
  }

  /** "Try again" on this part's upload or quote (the host repeats the configuration and the cart call). */
  retry(): void {
    const stage = this.state.error?.stage;
    this.patch({ error: null });
    if (stage === 'upload' && this.fileRun) void this.upload();
    else if (stage === 'quote') this.scheduleQuote(0);
  }

  select(field: keyof Selection, raw: string): void {
    const config = this.host.config;
    const { selection } = this.state;
    if (!config || !selection) return;
    if (field === 'quantity') {
      const checked = checkQuantity(config, raw);
      if ('error' in checked) {
        // The typed value stays in the field, next to what is wrong with it; no price is shown for another quantity.
        this.patch({ quantityError: checked.error, added: null });
        return;
      }
      const changed = checked.quantity !== selection.quantity || this.state.quantityError !== null;
      this.patch({
        selection: { ...selection, quantity: checked.quantity },
        quantityError: null,
        added: changed ? null : this.state.added,
      });
      // The price per piece does not change with the quantity: no new slice, only a new total.
      if (changed && this.state.quote && this.state.quoting === null) this.host.emit('sq-quote', this.quoteDetail());
      return;
    }
    const next =
      field === 'material'
        ? withMaterial(config, selection, raw)
        : { ...selection, [field]: field === 'infill' ? Number(raw) : raw };
    this.patch({ selection: next });
    this.host.recolor(this);
    this.scheduleQuote(REQUOTE_DEBOUNCE_MS, field === 'color');
  }

  patch(change: Partial<PartState>): void {
    this.state = { ...this.state, ...change };
    this.countdown.follow(this.state.quoting !== null && !!this.state.pricing?.timeLeft);
    this.host.changed(this);
  }

  fail(stage: Stage, e: unknown): void {
    const err = toWidgetError(e);
    // A price the cart refused (expired, made at an earlier size) is never shown again: Try again prices anew.
    if (stage === 'quote') this.priced.forget(this.state.quote?.quote_id);
    const limit = err.slicerLimit;
    this.patch({
      error: { ...err.detail, stage, ...(limit ? { slicerLimit: limit } : {}) },
      ...(limit
        ? { overLimit: learnOverLimit(this.state.overLimit, this.state.file, this.state.selection, limit) }
        : {}),
    });
    this.host.emit('sq-error', err.detail);
  }

  /** The line total shown: unit price × quantity, raised to the shop's minimum line price. */
  lineTotal(): number | null {
    const { quote, selection, quantityError } = this.state;
    const config = this.host.config;
    if (!quote || !selection || !config || quantityError) return null;
    return lineTotal(quote, selection.quantity, config);
  }

  /** The part's quote as `sq-quote` reports it. */
  quoteDetail(): QuoteDetail {
    return quoteDetail(this.state, this.host.config!);
  }
}
