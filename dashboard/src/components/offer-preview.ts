// What a shopper sees with an offer that is not saved yet: the storefront widget's own templates and styles
// (widget/src/view.ts, widget/src/styles.ts) rendered from the offer being edited, so the preview cannot
// drift from the widget. The option selectors work as in the shop (a material brings its colours, the
// quantity is checked against the range); files are not uploaded here, since quotes follow the saved offer.
import { LitElement, type PropertyValues } from 'lit';
import {
  checkQuantity,
  clampQuantity,
  findMaterial,
  findQuality,
  initialSelection,
  withMaterial,
} from '../../../widget/src/selection.ts';
import { EMPTY_RUN, type StageError } from '../../../widget/src/state.ts';
import { styles } from '../../../widget/src/styles.ts';
import type { Selection, WidgetConfig } from '../../../widget/src/types.ts';
import { type Handlers, renderWidget } from '../../../widget/src/view.ts';

const PREVIEW_ONLY: StageError = {
  stage: 'file',
  code: 'preview_only',
  message:
    'This preview shows your options only. To quote a real model, save the offer and use the live widget ' +
    'on the Widget keys page.',
  retryable: false,
};
PREVIEW_ONLY.shopper = PREVIEW_ONLY.message;

/** The shopper's current picks carried over to a changed offer, where they are still offered. */
function carryOver(config: WidgetConfig, previous: Selection | null): Selection {
  const start = initialSelection(config);
  if (!previous) return start;
  const material = findMaterial(config, previous.material);
  const withColor = material ? withMaterial(config, { ...start, color: previous.color }, material.name) : start;
  return {
    ...withColor,
    quality: findQuality(config, previous.quality) ? previous.quality : start.quality,
    infill: config.infill_options.includes(previous.infill) ? previous.infill : start.infill,
    quantity: clampQuantity(config, String(previous.quantity)),
  };
}

export class OfferPreview extends LitElement {
  // Shadow DOM on purpose (the rest of the dashboard renders in the light DOM): the widget's styles apply here
  // exactly as in a shop page, and its element ids cannot collide with the dashboard's.
  static override styles = styles;
  static override properties = {
    config: { attribute: false },
    selection: { state: true },
    note: { state: true },
    quantityError: { state: true },
  };
  declare config: WidgetConfig | null;
  declare selection: Selection | null;
  declare note: StageError | null;
  /** The shop's quantity check, as the widget shows it. */
  declare quantityError: string | null;

  constructor() {
    super();
    this.config = null;
    this.selection = null;
    this.note = null;
    this.quantityError = null;
  }

  private readonly handlers: Handlers = {
    choose: () => (this.note = PREVIEW_ONLY),
    fileChosen: () => undefined,
    select: (field, value) => this.select(field, value),
    addToCart: () => undefined,
    retry: () => (this.note = null),
    viewKey: () => undefined,
    zoom: () => undefined,
    resetView: () => undefined,
    rescale: () => undefined,
    keepUnit: () => undefined,
    compare: () => undefined,
  };

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('config') && this.config) this.selection = carryOver(this.config, this.selection);
  }

  private select(field: keyof Selection, raw: string) {
    const config = this.config;
    if (!config || !this.selection) return;
    if (field === 'material') this.selection = withMaterial(config, this.selection, raw);
    else if (field === 'quantity') {
      const checked = checkQuantity(config, raw);
      this.quantityError = 'error' in checked ? checked.error : null;
      if ('quantity' in checked) this.selection = { ...this.selection, quantity: checked.quantity };
    } else this.selection = { ...this.selection, [field]: field === 'infill' ? Number(raw) : raw };
  }

  protected override render() {
    const state = {
      ...EMPTY_RUN,
      config: this.config,
      selection: this.selection,
      quantityError: this.quantityError,
      error: this.note,
      dragging: false,
      previewUnavailable: false,
      locale: undefined,
      currencyDisplay: 'symbol' as const,
      comparing: false,
      prices: null,
    };
    return renderWidget(state, null, this.handlers);
  }
}
customElements.define('sq-offer-preview', OfferPreview);
