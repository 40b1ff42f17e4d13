// One part's way from a file to a line in the cart: read in a Web Worker, checked against the build
// volume, uploaded through its own single-use upload id, priced from a real slice (re-priced as its
// options change), rescaled when the shopper accepts the unit offer, and added to the cart.
// <slice-quote> runs one of these; with `multiple`, one per row. What the parts share stays in the
// element (the host): the shop's configuration, the API client with the shopper's token, the 3D view
// and the events.
import type { ReactiveControllerHost } from 'lit';
import type { WidgetApi } from './api.ts';
import { toWidgetError, WidgetError } from './errors.ts';
import { dimensions, lineSummary } from './format.ts';
import { parseInWorker, type ParseRun } from './parse-client.ts';
import type { EstimateStage, ParsedPreview, StageFeatures } from './parse-protocol.ts';
import { fetchQuote, quoteRequest, sleep } from './quote-flow.ts';
import { checkQuantity, findQuality, lineTotal, withMaterial } from './selection.ts';
import { EMPTY_RUN, type ModelSummary, type PartState, type Stage } from './state.ts';
import type { EstimateSettings } from '../../shared/estimate/index.ts';
import { ChoiceEstimates, estimateKey } from './choice-estimate.ts';
import { followTimeLeft, type TimeLeft } from './time-left.ts';
import type {
  AddToCartDetail,
  BuildVolume,
  CartLine,
  FileRecord,
  PricedLine,
  Quote,
  Pricing,
  QuoteDetail,
  Selection,
  WidgetConfig,
} from './types.ts';
import { unitOffer, unitQuestion } from './unit-offer.ts';
import { learnOverLimit } from './over-limit.ts';
import { MaterialComparison } from './material-compare.ts';
import { QuoteKeeper } from './quote-keeper.ts';
import type { PartEvent, SliceQuoteEventDetails } from './events.ts';

const REQUOTE_DEBOUNCE_MS = 300;
/** The longest the 3D preview waits for the first figure before it is drawn anyway. */
const PREVIEW_WAITS_MS = 1000;
/** How often the time left shown counts down between two reads of the job. */
const TICK_MS = 500;
/** A price the part already has is shown again only while it has at least this long left to live. */
const REUSE_MARGIN_MS = 60_000;

/** Uploads smaller than this are never cut short: they are let arrive and deleted (see worthCutting). */
const CUT_MIN_BYTES = 8 * 1024 * 1024;

/**
 * Whether to stop an unwanted upload on its way rather than let it arrive and delete it. Progress events lag the
 * bytes (a small file leaves in one write and reports it later), and the server keeps an upload whose last byte
 * arrived even if the browser then cuts it: so only a large upload with at least half still to send is cut, where
 * the bytes saved matter and the events' lag cannot span that half on a shopper's connection.
 */
function worthCutting(size: number, progress: number): boolean {
  return size >= CUT_MIN_BYTES && progress < 0.5;
}

/** Cart refusals a fresh price mends (expired; priced at an earlier size): Try again prices the part again. */
export const REPRICE = new Set(['quote_expired', 'quote_stale']);

/** The element's renders, which the part's material comparison follows (material-compare.ts). */
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

/**
 * Where a part is, in the words a row shows: `queued` until its turn comes to be read; `confirm-size` while it is
 * priced at a size in doubt (the unit offer waits for an answer), which is not yet a price to sell.
 */
export type PartStatus =
  | 'queued'
  | 'reading'
  | 'uploading'
  | 'checking'
  | 'pricing'
  | 'confirm-size'
  | 'priced'
  | 'failed';

export function partStatus(s: PartState): PartStatus {
  if (s.error) return 'failed';
  if (s.parsing) return 'reading';
  if (s.uploadProgress !== null) return s.uploadProgress >= 1 ? 'checking' : 'uploading';
  if (s.rescaling) return 'checking';
  if (s.quoting !== null) return 'pricing';
  if (!s.quote) return 'queued';
  return unitQuestion(s.file, s.unitKept) ? 'confirm-size' : 'priced';
}

let nextId = 1;

/** How many times an upload refused because the shopper's other files are still being read is sent again. */
const QUEUE_RETRIES = 5;

export class PartFlow {
  /** Stable for the part's life (ids of its row's controls), unlike its position in the list. */
  readonly id = nextId++;
  state: PartState;
  sourceFile: File | null = null;
  parsed: ParsedPreview | null = null;
  private fileRun: AbortController | null = null;
  /** The parse worker of the file, which keeps its mesh to measure a changed choice's estimate. */
  private parse: ParseRun | null = null;
  /** The part's scale since it was read (a rescale on the server): what the worker's mesh is measured at. */
  private meshScale = 1;
  /** The features measured of the mesh, by stage, size and settings. */
  private readonly measured = new Map<string, Promise<StageFeatures[EstimateStage] | null>>();
  /** Estimates of the choices the shopper made (choice-estimate.ts), the first one included. */
  private readonly estimates = new ChoiceEstimates({
    client: () => this.host.client,
    config: () => this.host.config,
    current: () => (this.state.selection ? { selection: this.state.selection, scale: this.meshScale } : null),
    measure: (stage, settings) => this.measure(stage, settings),
    estimated: (key) => this.showEstimate(key),
    coarseSettled: () => this.drawPreview(),
  });
  /** Draws the 3D preview once the first figure is on screen (drawPreview), at most PREVIEW_WAITS_MS after the
   *  parse; null when it is drawn. */
  private previewWaits: (() => void) | null = null;
  /** The quote in flight has an estimate of its own (the server's, from the placed mesh): it wins. */
  private quoteEstimated = false;
  /** What the shopper is shown of the time left (time-left.ts), and the timer that counts it down. */
  private timeLeft: TimeLeft | null = null;
  private ticker = 0;
  private quoteRun: AbortController | null = null;
  private debounce = 0;
  /**
   * The exact prices this part already has, by file, scale and choices: a shopper who goes back to a choice sees its
   * price at once, and it costs no request (nor a place in the shopper's rate limit).
   */
  private readonly priced = new Map<string, Quote>();
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

  /**
   * The estimator's features of one stage of the mesh with `settings` at its size: the first ones measured with the
   * parse, others measured once each (a material change keeps them: no setting the estimator reads changes with the
   * material).
   */
  private measure<S extends EstimateStage>(stage: S, settings: EstimateSettings): Promise<StageFeatures[S] | null> {
    const run = this.parse;
    const config = this.host.config;
    if (!run || !config) return Promise.resolve(null);
    const key = `${stage}|${this.meshScale}|${JSON.stringify(settings)}`;
    let features = this.measured.get(key) as Promise<StageFeatures[S] | null> | undefined;
    if (!features) {
      const first = this.meshScale === 1 && JSON.stringify(settings) === JSON.stringify(config.slice_settings);
      features = first ? run.first[stage] : run.measure(stage, settings, this.meshScale);
      this.measured.set(key, features);
    }
    return features;
  }

  /** Starts over with `file`: whatever ran for the previous file stops. The signal aborts with the next start. */
  start(file: File): AbortSignal {
    this.cancel();
    const run = new AbortController();
    this.fileRun = run;
    this.sourceFile = file;
    this.parsed = null;
    this.parse = null;
    this.meshScale = 1;
    this.measured.clear();
    this.estimates.clear();
    this.priced.clear();
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
    this.parse = parse;
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
    // The first estimate, from the browser's own measurements, while the upload runs. The 3D preview waits for its
    // coarse figure: drawing the first frame of a large mesh is a long task on a slow machine (seconds in software
    // WebGL), and the request, its answer and the figure would wait behind it. Never longer than PREVIEW_WAITS_MS.
    let drawn = false;
    const draw = () => {
      if (drawn || signal.aborted) return;
      drawn = true;
      if (this.previewWaits === draw) this.previewWaits = null;
      this.host.showModel(this);
    };
    this.previewWaits = draw;
    window.setTimeout(draw, PREVIEW_WAITS_MS);
    if (this.multiColour) this.drawPreview();
    else void this.estimates.request(signal);
    await this.landed(sending);
  }

  /** Draws the preview waiting for the first figure, once that figure has been painted (after the next frame). */
  private drawPreview(): void {
    const draw = this.previewWaits;
    if (draw) requestAnimationFrame(() => window.setTimeout(draw, 0));
  }

  /** Back to nothing, keeping the choices. */
  clear(): void {
    this.cancel();
    this.sourceFile = this.parsed = null;
    this.parse = null;
    this.meshScale = 1;
    this.measured.clear();
    this.estimates.clear();
    this.priced.clear();
    this.patch({ ...EMPTY_RUN });
  }

  /** Stops whatever runs (a removed row, a new file). */
  cancel(): void {
    clearTimeout(this.debounce);
    this.fileRun?.abort();
    this.quoteRun?.abort();
    this.comparison.stop();
    clearInterval(this.ticker);
    this.ticker = 0;
  }

  /** One upload of the source file under the file's run; drop() stops it, or deletes the file once it has arrived. */
  private send(): Sending {
    const client = this.host.client!;
    const file = this.sourceFile!;
    const stop = new AbortController();
    this.fileRun!.signal.addEventListener('abort', () => stop.abort(), { once: true });
    let dropped = false;
    this.patch({ uploadProgress: 0, error: null });
    const done = (async () => {
      for (let attempt = 1; ; attempt++) {
        // Each part has its own single-use upload id; the shopper's token is the client's, shared by all parts.
        const ticket = await client.uploadTicket(stop.signal);
        try {
          return await client.upload(ticket, file, (f) => dropped || this.patch({ uploadProgress: f }), stop.signal);
        } catch (e) {
          // The shopper's other files are still being read (several dropped at once): this one waits its turn, as
          // long as the server asks, a few times, instead of failing its row.
          if (!(e instanceof WidgetError) || e.code !== 'parse_queue_full' || attempt >= QUEUE_RETRIES) throw e;
          await sleep(e.retryAfterMs || 1000, stop.signal);
        }
      }
    })();
    done.catch(() => undefined); // read by landed(), once the parse has accepted the file
    const drop = () => {
      dropped = true;
      // Bytes still on their way stop (the server keeps nothing of a cut upload); a file it already has is deleted.
      if (worthCutting(file.size, this.state.uploadProgress ?? 0)) stop.abort();
      done.then((f) => client.deleteFile(f.file_id)).catch(() => undefined);
    };
    return { done, drop };
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
    if (!selection || error || key !== estimateKey(selection, this.meshScale)) return;
    if ((quote && quoting === null) || this.state.holding || this.quoteEstimated) return;
    const estimate = this.estimates.get(selection, this.meshScale);
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
    const known = this.knownPrice();
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
    const estimate = holding ? null : this.estimates.get(selection, this.meshScale);
    this.patch({
      quoting: 0,
      holding,
      added: null,
      error: null,
      pricing: estimate ? { percent: 0, estimate, step: null, reading: null } : null,
    });
    if (estimate) this.host.emit('sq-estimate', { file_id: file.file_id, estimate });
    // A coarse estimate known is shown, and the fine one still measured.
    const settled = this.estimates.settled(selection, this.meshScale);
    if (!holding && !settled && this.fileRun && !this.multiColour) void this.estimates.request(this.fileRun.signal);
    this.debounce = window.setTimeout(() => void this.quoteNow(), delay);
  }

  /** Which file, at which size (its unit and scale), with which choices: what one exact price is for. */
  private priceKey(): string | null {
    const { file, selection } = this.state;
    return file && selection
      ? `${file.file_id}@${file.unit}×${file.scale}:${JSON.stringify(quoteRequest(selection).choices)}`
      : null;
  }

  /** The exact price this part already has for the choices now selected, while it is far enough from expiring. */
  private knownPrice(): Quote | null {
    const key = this.priceKey();
    const quote = key ? this.priced.get(key) : undefined;
    if (!key || !quote) return null;
    if (Date.parse(quote.expires_at) - Date.now() > REUSE_MARGIN_MS) return quote;
    this.priced.delete(key);
    return null;
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
      const key = this.priceKey();
      if (key) this.priced.set(key, quote);
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
      this.estimates.keep(selection, this.meshScale, progress.estimate);
    }
    const estimate = progress.estimate ?? this.estimates.get(selection, this.meshScale);
    const fresh = estimate && estimate !== this.state.pricing?.estimate;
    const now = Date.now();
    if (progress.reading) this.timeLeft = followTimeLeft(this.timeLeft, progress.reading, now);
    this.patch({ quoting: progress.percent, pricing: { ...progress, estimate, timeLeft: this.timeLeft, now } });
    if (fresh && this.state.file)
      this.host.emit('sq-estimate', { file_id: this.state.file.file_id, estimate: estimate! });
  }

  /** Counts the time left down on screen while a slice runs, between the job's reads; stops with it. */
  private syncTicker(): void {
    const counting = this.state.quoting !== null && !!this.state.pricing?.timeLeft;
    if (counting && !this.ticker)
      this.ticker = window.setInterval(() => {
        if (this.state.pricing) this.patch({ pricing: { ...this.state.pricing, now: Date.now() } });
      }, TICK_MS);
    else if (!counting && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = 0;
    }
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
      const err = toWidgetError(e);
      if (REPRICE.has(err.code)) this.fail('quote', new WidgetError(err.code, err.message, true));
      else this.fail('cart', err);
      return null;
    }
  }

  /** What the cart call sends for this part, or null when it may not go now (see `addable`). */
  cartRequest(): { quote_id: string; quantity: number } | null {
    return this.addable ? { quote_id: this.state.quote!.quote_id, quantity: this.state.selection!.quantity } : null;
  }

  /** The server accepted this part's line: the row says so; the line as `sq-add-to-cart` reports it. */
  addedToCart(line: CartLine): AddToCartDetail {
    const { file, model } = this.state;
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
      cart_line_id: line.cart_line_id,
      file_revision: line.file_revision,
      file_name: model?.name ?? file!.name,
      subtotal: line.subtotal,
      minimum_unit_price: line.minimum_unit_price ?? null,
      minimum_line_adjustment: line.minimum_line_adjustment,
      summary: lineSummary(cartLine, this.host.locale),
      thumbnail: this.host.thumbnail(this),
    };
    this.patch({ adding: false, added: line });
    return detail;
  }

  /** The shopper accepted the unit offer: the server re-reads the upload, the preview and price follow. */
  async rescale(): Promise<void> {
    const { file, model } = this.state;
    const config = this.host.config;
    const offer = unitOffer(file);
    if (!file || !offer || !config || this.state.rescaling) return;
    this.patch({ rescaling: true, error: null });
    try {
      const scaled = await this.host.client!.rescale(file.file_id, offer.request);
      this.meshScale *= offer.factor;
      if (this.parsed && model) {
        this.parsed = scaleParsed(this.parsed, offer.factor);
        this.patch({ model: summarize(model.name, this.parsed, config.build_volume) });
        this.host.showModel(this);
      }
      this.patch({ file: scaled, rescaling: false });
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
    this.patch({ rescaling: true, error: null });
    try {
      const file = this.state.file ?? (await this.uploadNow());
      const scaled = await this.host.client!.rescale(file.file_id, { scale: +(file.scale * factor).toPrecision(6) });
      this.parsed = parsed;
      this.meshScale *= factor;
      this.patch({ file: scaled, model: scaledModel, rescaling: false });
      this.host.showModel(this);
    } catch (e) {
      this.patch({ rescaling: false });
      this.fail('file', e);
      return;
    }
    this.scheduleQuote(0);
  }

  /** Uploads the part (refused before upload for its size) so that the server can rescale it. */
  private async uploadNow() {
    const client = this.host.client!;
    const ticket = await client.uploadTicket();
    return client.upload(ticket, this.sourceFile!, () => undefined);
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
    this.syncTicker();
    this.host.changed(this);
  }

  fail(stage: Stage, e: unknown): void {
    const err = toWidgetError(e);
    // A price the cart refused (expired, made at an earlier size) is never shown again: Try again prices anew.
    if (stage === 'quote')
      for (const [key, q] of this.priced) if (q.quote_id === this.state.quote?.quote_id) this.priced.delete(key);
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

  quoteDetail(): QuoteDetail {
    const { quote, file, selection } = this.state;
    const config = this.host.config!;
    const q = quote!,
      sel = selection!;
    const quality = findQuality(config, q.choices?.quality ?? sel.quality);
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
      total_price: lineTotal(q, sel.quantity, config),
      currency: q.currency,
      estimated_time: q.estimated_time,
      estimated_time_seconds: q.estimated_time_seconds,
      filament_weight: q.filament_weight,
      placement: q.placement ?? null,
      signature: q.signature,
      cached: q.cached ?? false,
    };
  }
}

/** An upload under way beside the parse. */
interface Sending {
  done: Promise<FileRecord>;
  drop(): void;
}

/** The shop's published slice settings, as the estimator reads them (the fields it needs are all there). */
const publishedSettings = (config: WidgetConfig): EstimateSettings | null =>
  (config.slice_settings as EstimateSettings | null | undefined) ?? null;

function summarize(name: string, parsed: ParsedPreview, volume: BuildVolume): ModelSummary {
  // The server turns or lays down a model that does not fit as uploaded, and may lay a long one diagonally
  // across the plate: only what cannot fit either way is refused here, before any upload.
  const [short = 0, , long = 0] = [...parsed.size].sort((a, b) => a - b);
  const [low = 0, mid = 0, high = 0] = [volume.x, volume.y, volume.z].sort((a, b) => a - b);
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
