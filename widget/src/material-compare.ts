// "Compare all materials" of one part (the single part, or a row with `multiple`): whether its list is open, and
// every material's price for the part and its other choices (GET /v2/widget/files/{file_id}/prices), asked again
// whenever the part, its quality or infill, or its exact price changed (a new slice may turn an estimate exact). It
// never slices: the server reads its cache. The list itself is drawn by offer-view.ts. A Lit controller of the
// element: after each of its renders the list, while open, checks whether what it shows is still the part's.
import type { ReactiveController } from 'lit';
import type { WidgetApi } from './api.ts';
import type { PartState } from './state.ts';
import type { MaterialPrices } from './types.ts';

/** What the list is asked for: the API client, and the part's upload, choices and exact price. */
export interface Compared {
  client: WidgetApi | null;
  part: Pick<PartState, 'file' | 'selection' | 'quote'>;
}

export class MaterialComparison implements ReactiveController {
  open = false;
  prices: MaterialPrices | null = null;
  /** What the list shown (or being fetched) was asked for. */
  private asked = '';
  private run: AbortController | null = null;
  /** The last request failed: opening the list again asks again. */
  private failed = false;

  /** `changed`: the list changed, render it; `compared`: the part as it is now. */
  constructor(
    private readonly changed: () => void,
    private readonly compared: () => Compared,
  ) {}

  hostUpdated(): void {
    const { client, part } = this.compared();
    this.refresh(client, part);
  }

  toggle(): void {
    this.open = !this.open;
    if (this.open && this.failed) this.asked = '';
    this.changed();
  }

  /** While the list is open, asks for it when what it depends on changed; otherwise does nothing. */
  private refresh(client: WidgetApi | null, s: Pick<PartState, 'file' | 'selection' | 'quote'>): void {
    const { file, selection, quote } = s;
    if (!this.open || !client || !file || !selection) return;
    const asked = [file.file_id, selection.quality, selection.infill, quote?.quote_id ?? ''].join('|');
    if (asked === this.asked) return;
    this.stop();
    this.asked = asked;
    const run = new AbortController();
    this.run = run;
    this.prices = null;
    this.failed = false;
    client.prices(file.file_id, selection.quality, selection.infill, run.signal).then(
      (prices) => {
        if (run.signal.aborted) return;
        this.prices = prices;
        this.changed();
      },
      () => {
        if (run.signal.aborted) return;
        const none = { file_id: file.file_id, currency: null, quality: selection.quality, infill: selection.infill };
        this.prices = { ...none, prices: [] };
        // Asked again at the next change, or when the list is opened again; not at once (a failing server).
        this.failed = true;
        this.changed();
      },
    );
  }

  /** Drops a request under way (the part was removed, or another file taken); the next refresh asks anew. */
  stop(): void {
    this.run?.abort();
    this.run = null;
    this.asked = '';
  }
}
