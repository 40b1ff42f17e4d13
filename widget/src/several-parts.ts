// The rows of <slice-quote multiple> (parts-view.ts draws them): new rows for dropped files, as many as `max-parts`
// allows, read and uploaded a few at a time; a row removed with the focus kept in the list; and "Add all to cart",
// one cart call for every priced row, all or nothing, with one `sq-add-to-cart` for the lines (and a quote request
// for them all where no cart on the page took them).
import { toWidgetError, type WidgetError } from './errors.ts';
import { type NoCartLine, NoCartRequest } from './no-cart-request.ts';
import type { PartFlow } from './part-flow.ts';
import { partStatus } from './part-status.ts';
import type { PartsState } from './parts-view.ts';
import { aboveRule, type RequestHandlers, type RequestState } from './quote-request.ts';
import type { WidgetState } from './state.ts';
import type { CartLine, Selection, WidgetConfig } from './types.ts';
import type { WidgetHost } from './widget-host.ts';

/** Parts in one widget with `multiple`: the default, and the most `max-parts` may ask for. */
export const DEFAULT_MAX_PARTS = 10;
export const MAX_PARTS_CAP = 25;
/** Parts read and uploaded at once; the others wait their turn (their slices then run in parallel). */
const LOAD_CONCURRENCY = 3;

const NOTHING_ADDED: PartsState = {
  adding: false,
  added: null,
  reserved: false,
  refused: [],
  cartError: null,
  lineRefused: null,
};

export interface SeveralPartsHost extends WidgetHost {
  /** The element's `max-parts`, as given. */
  readonly maxParts: number | null;
  /** The shop's configuration, loading it again when the last attempt failed; null: the reason is shown. */
  ensureConfig(): Promise<WidgetConfig | null>;
  /** No configuration came: says why, unless the element has already shown it. */
  configMissing(): void;
  /** A new part with the shop's first choices. */
  newPart(config: WidgetConfig): PartFlow;
  /** The part's state with the shop's, as the merchant's rule reads them. */
  stateOf(part: PartFlow): WidgetState;
  /** A row was removed: its picture goes. */
  forget(part: PartFlow): void;
}

export class SeveralParts {
  /** The rows, in the order the shopper added them. */
  parts: PartFlow[] = [];
  /** Add all to cart and the notes about the list (files over the limit). */
  list: PartsState = NOTHING_ADDED;
  /** Files dropped while the configuration could not be loaded; taken once it is. */
  private pendingFiles: File[] = [];
  /** Parts being read and uploaded, and those waiting for their turn. */
  private loading = 0;
  private readonly waiting: (() => void)[] = [];
  /** Request a quote of the lines the last Add all recorded where no cart took them. */
  private readonly linesRequest: NoCartRequest;

  constructor(private readonly host: SeveralPartsHost) {
    this.linesRequest = new NoCartRequest(host, 'all');
  }

  /** `max-parts` within 1..25; 10 when absent or not a number. */
  get maxAllowed(): number {
    const n = Math.floor(Number(this.host.maxParts));
    return Number.isFinite(n) && n >= 1 ? Math.min(n, MAX_PARTS_CAP) : DEFAULT_MAX_PARTS;
  }

  /** Every row removed. */
  reset(): void {
    for (const part of this.parts) part.remove();
    this.parts = [];
    this.pendingFiles = [];
    this.setList(NOTHING_ADDED);
    this.linesRequest.close();
  }

  /** New rows for `files`, as many as the limit leaves room for; the others are named in a notice. */
  async add(files: File[]): Promise<void> {
    if (!files.length) return;
    const config = await this.host.ensureConfig();
    // Counted after the wait, so that two quick drops cannot pass the limit together.
    const room = Math.max(0, this.maxAllowed - this.parts.length - this.pendingFiles.length);
    this.setList({ added: null, refused: files.slice(room).map((f) => f.name) });
    const taken = files.slice(0, room);
    if (!config) {
      // The reason is shown (ensureConfig); Try again reloads the configuration and then adds these files.
      this.pendingFiles.push(...taken);
      this.host.configMissing();
      return;
    }
    await Promise.all(taken.map((file) => this.read(config, file)));
  }

  /** The configuration is back (Try again): the files dropped without it become rows. */
  addPending(): Promise<void> {
    return this.add(this.pendingFiles.splice(0));
  }

  /** A choice of a row: whatever the last Add all said no longer holds. */
  select(part: PartFlow, field: keyof Selection, value: string): void {
    this.setList({ added: null, cartError: null, lineRefused: null });
    part.select(field, value);
  }

  /** Removes a row; focus goes to the row that takes its place, else the one before, else "Add files". */
  remove(part: PartFlow): void {
    const index = this.parts.indexOf(part);
    if (index < 0) return;
    part.remove();
    this.host.forget(part);
    this.parts = this.parts.filter((p) => p !== part);
    this.setList({ added: null, refused: [], lineRefused: null });
    const next = this.parts[index] ?? this.parts[index - 1];
    this.host.focusAfterRender(next ? `#part-${next.id} [part~=remove-button]` : '[part~=choose-button]');
  }

  /** "Try again" on a row: its upload or quote; after a refused cart line, every priced row again, all or nothing. */
  async retry(part: PartFlow): Promise<void> {
    if (part.state.error?.stage !== 'cart') return part.retry();
    part.patch({ error: null });
    await this.addAll();
  }

  /** Try again after the cart call failed as a whole. */
  retryCart(): Promise<void> {
    this.setList({ cartError: null });
    return this.addAll();
  }

  /**
   * Adds every priced row to the cart in one cart call, all or nothing, and fires one `sq-add-to-cart`
   * with the lines. A line the server refuses fails its row (nothing is added); a call that failed as a
   * whole (network, busy server) says so under the button, with Try again.
   */
  async addAll(): Promise<void> {
    // A failed row has its own Try again; one above the merchant's rule its own Request a quote.
    const ready = this.parts.filter((p) => p.addable && !p.state.error && !aboveRule(this.host.stateOf(p)));
    // A size in doubt holds every part back (its status is `confirm-size`); a row that failed is left out.
    const busy = this.parts.some((p) => !['priced', 'failed'].includes(partStatus(p.state)) || p.state.quantityError);
    if (!ready.length || busy || this.list.adding) return;
    const requests = ready.map((p) => p.cartRequest()!);
    this.setList({ adding: true, added: null, cartError: null, lineRefused: null });
    for (const p of ready) p.patch({ adding: true, added: null });
    try {
      const { lines } = await this.host.client!.addLinesToCart(requests);
      const details = ready.map((p, i) => p.addedToCart(lines[i]!));
      this.setList({ adding: false, added: details.length });
      await this.host.deliver(details, { lines: details }, (taken) => {
        for (const p of ready) p.patch({ reserved: !taken });
        this.setList({ reserved: !taken });
        if (!taken) this.linesRequest.open(lines.map(noCartLine));
      });
    } catch (e) {
      for (const p of ready) p.patch({ adding: false });
      this.refused(ready, toWidgetError(e));
    }
  }

  /** The request form for the lines of the last Add all, while no cart has taken them. */
  linesRequestView(): { state: RequestState; handlers: RequestHandlers; count: number } | null {
    const { state, count, handlers } = this.linesRequest;
    // About the lines of the last Add all: anything changed since (a choice, a row) closes it, as it ends the note.
    if (!state || !this.list.added || !this.list.reserved) return null;
    return { state, count, handlers };
  }

  /** A new row for `file`, read and uploaded when its turn comes. */
  private read(config: WidgetConfig, file: File): Promise<void> {
    const part = this.host.newPart(config);
    this.parts = [...this.parts, part];
    const signal = part.start(file);
    part.patch({ parsing: false }); // queued until its turn comes
    return this.inTurn(async () => {
      if (signal.aborted) return;
      part.patch({ parsing: true });
      await part.read(config, signal);
    });
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

  /** The cart call failed: the row whose line was refused says why, else the list does. */
  private refused(ready: PartFlow[], err: WidgetError): void {
    const refused = err.line === null ? undefined : ready[err.line];
    this.setList({ adding: false, lineRefused: refused?.id ?? null });
    if (refused) refused.refusedByCart(err);
    else {
      this.setList({ cartError: { ...err.detail, stage: 'cart' } });
      this.host.emit('sq-error', err.detail);
    }
  }

  private setList(change: Partial<PartsState>): void {
    this.list = { ...this.list, ...change };
    this.host.changed();
  }
}

/** A line no cart took, as its quote request names it. */
const noCartLine = (l: CartLine): NoCartLine => ({
  body: { file_id: l.file_id, quote_id: l.quote_id, quantity: l.quantity },
  file_id: l.file_id,
  quote_id: l.quote_id,
});
