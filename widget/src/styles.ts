// The element's shadow styles. Everything a shop may want to change is a --sq-* custom property
// (they inherit through the shadow boundary) or reachable through a `part`.
import { css } from 'lit';

export const styles = css`
  :host {
    display: block;
    container-type: inline-size;
    font-family: var(--sq-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    font-size: var(--sq-font-size, 1rem);
    color: var(--sq-text, #1f2937);
    --_bg: var(--sq-background, #ffffff);
    --_surface: var(--sq-surface, #f3f4f6);
    --_border: var(--sq-border, #9ca3af);
    --_muted: var(--sq-muted, #4b5563);
    --_accent: var(--sq-accent, #1d4ed8);
    --_accent-text: var(--sq-accent-text, #ffffff);
    --_error: var(--sq-error, #b91c1c);
    --_success: var(--sq-success, #166534);
    --_radius: var(--sq-radius, 8px);
    --_gap: var(--sq-gap, 16px);
  }
  :host([hidden]) { display: none; }
  * { box-sizing: border-box; }

  .root {
    display: grid;
    gap: var(--_gap);
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: var(--_gap);
    min-width: 0;
  }
  @container (min-width: 680px) {
    /* The 3D view on the left; the options, then the price and Add to cart, on the right. */
    .root {
      grid-template-columns: minmax(0, 6fr) minmax(0, 5fr);
      grid-template-rows: auto 1fr;
      grid-template-areas: 'stage panel' 'stage buy';
    }
    .stage { grid-area: stage; }
    .panel { grid-area: panel; }
    .buy-bar { grid-area: buy; align-self: start; }
  }
  @container (max-width: 679.98px) {
    /* On a phone the price and Add to cart stay in view while the shopper scrolls through the options. */
    .buy-bar {
      position: sticky; bottom: 0; z-index: 1;
      grid-template-columns: minmax(0, 1fr) auto; align-items: center;
      margin: 0 calc(-1 * var(--_gap)) calc(-1 * var(--_gap)); padding: 8px var(--_gap);
      background: var(--_bg); border-top: 1px solid var(--_border);
      border-radius: 0 0 var(--_radius) var(--_radius);
      box-shadow: 0 -4px 12px rgb(0 0 0 / 0.08);
    }
    .buy-bar .price { min-height: 0; padding: 4px 0; background: none; }
    .buy-bar .amount { font-size: 1.4em; }
    .buy-bar .each, .buy-bar .progress, .buy-bar .added { font-size: 0.8em; }
    .buy-bar .add { width: auto; }
    .buy-bar .added { grid-column: 1 / -1; }
    /* The bar stays short (under 15 % of the screen) while an estimate shows: its progress label is
       the progress bar's accessible name, so only the bar itself is drawn. */
    .buy-bar .progress { gap: 0; }
    .buy-bar .progress span { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
    .buy-bar .estimate .amount { font-size: 1.2em; }
    /* "exact price in" is left to screen readers there: "~6 s — slower than predicted" keeps the bar short. */
    .buy-bar .when-lead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
    /* A control the browser scrolls to (Tab, a focus after a render) stops above the sticky bar, never
       under it: the bar is at most 15 % of the screen, plus a gap. The quantity keeps its help or
       error line in view too. */
    .stage, .panel, .parts { --_bar-room: calc(15vh + 12px); }
    :is(.stage, .panel, .parts, .dropzone) :is(button, select, input, canvas, [tabindex]) { scroll-margin-bottom: var(--_bar-room); }
    input[type='number'] { scroll-margin-bottom: calc(var(--_bar-room) + 3em); }
  }

  .stage { display: grid; gap: 8px; align-content: start; min-width: 0; }
  .buy-bar { display: grid; gap: 8px 12px; min-width: 0; }
  .dropzone, .viewport {
    position: relative;
    height: var(--sq-preview-height, 320px);
    border-radius: var(--_radius);
    background: var(--_surface);
  }
  .dropzone {
    display: grid;
    place-content: center;
    justify-items: center;
    gap: 12px;
    padding: var(--_gap);
    text-align: center;
    border: 2px dashed var(--_border);
  }
  .dragging .dropzone, .dragging .viewport { outline: 3px solid var(--_accent); outline-offset: 2px; }
  .hint { color: var(--_muted); font-size: 0.875em; margin: 0; }
  .no-preview { padding: var(--_gap); }
  .viewport { overflow: hidden; }
  .viewport canvas { display: block; width: 100%; height: 100%; touch-action: none; }
  .viewport canvas:focus-visible { outline: 3px solid var(--_accent); outline-offset: -3px; }
  .view-tools { position: absolute; top: 8px; right: 8px; display: flex; gap: 4px; }
  .view-tools button { min-width: 44px; min-height: 44px; padding: 4px 8px; font-size: 1.25em; line-height: 1; }
  .badge {
    position: absolute; left: 8px; bottom: 8px; padding: 4px 10px; border-radius: 999px;
    background: var(--_bg); border: 1px solid var(--_border); font-size: 0.875em;
  }
  .badge.misfit { background: var(--_error); border-color: var(--_error); color: #fff; font-weight: 600; }
  .file-line { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; justify-content: space-between; }
  /* Names wrap between words; only a single word wider than the line is broken. */
  .file-name { font-weight: 600; overflow-wrap: break-word; min-width: 0; }

  .panel { display: grid; gap: 12px; align-content: start; min-width: 0; }
  .options { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 12px; margin: 0; padding: 0; border: 0; }
  .field { display: grid; gap: 4px; min-width: 0; align-content: start; }
  /* Quality labels ("Standard · 0.2 mm") are long: a row of their own, never cut off. */
  .field.wide { grid-column: 1 / -1; }
  .field-error { color: var(--_error); font-size: 0.875em; font-weight: 600; margin: 0; }
  input[aria-invalid='true'] { border-color: var(--_error); border-width: 2px; }
  label { font-size: 0.875em; font-weight: 600; }
  select, input[type='number'] {
    font: inherit; color: inherit; background: var(--_bg);
    width: 100%; min-height: 40px; padding: 6px 8px;
    border: 1px solid var(--_border); border-radius: calc(var(--_radius) / 2);
  }
  select:focus-visible, input:focus-visible, button:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }

  button {
    font: inherit; cursor: pointer; min-height: 40px; padding: 8px 16px;
    border-radius: calc(var(--_radius) / 2); border: 1px solid var(--_border);
    background: var(--_bg); color: inherit;
  }
  button:disabled, button[aria-disabled='true'] { cursor: not-allowed; opacity: 0.6; }
  .price:focus { outline: none; }
  .price:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
  .primary { background: var(--_accent); border-color: var(--_accent); color: var(--_accent-text); font-weight: 600; }
  .add { width: 100%; min-height: 48px; font-size: 1.05em; }

  .progress { display: grid; gap: 4px; font-size: 0.875em; }
  progress { width: 100%; height: 8px; accent-color: var(--_accent); }

  .price { min-height: 3.5em; padding: 12px; border-radius: var(--_radius); background: var(--_surface); }
  /* Nothing in the price box is dimmed: while a choice is priced its estimate shows, marked with ≈ and its range, or
     the price that holds for it (only the colour changed); never the last price as if it were current. */
  .estimate .amount { font-style: italic; }
  .amount { font-size: 1.75em; font-weight: 700; line-height: 1.2; }
  .each { color: var(--_muted); }
  .facts { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 8px 0 0; font-size: 0.875em; }
  .facts div { display: flex; gap: 4px; }
  .facts dt { color: var(--_muted); }
  .facts dd { margin: 0; font-weight: 600; }

  .error {
    display: grid; gap: 8px; padding: 12px; border-radius: var(--_radius);
    border: 1px solid var(--_error); color: var(--_error); background: var(--_bg);
  }
  .error p { margin: 0; }
  .unit-offer {
    display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; justify-content: space-between;
    padding: 12px; border-radius: var(--_radius); border: 1px solid var(--_accent); background: var(--_surface);
  }
  .added { color: var(--_success); font-weight: 600; margin: 0; }
  .scale-control, .keep {
    display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center;
    padding: 12px; border-radius: var(--_radius); border: 1px solid var(--_border); background: var(--_surface);
  }
  .scale-control .hint { flex-basis: 100%; }
  .scale-input input { width: 5em; }
  .keep label, .keep .hint { flex-basis: 100%; }
  /* The link is shown whole: it wraps inside its field (sized to it where the browser can, else by rows). */
  .kept-link {
    flex: 1 1 100%; width: 100%; min-width: 0; resize: none; field-sizing: content;
    font: inherit; font-size: 0.875em; color: inherit; background: var(--_bg); overflow-wrap: anywhere;
    padding: 6px 8px; border: 1px solid var(--_border); border-radius: calc(var(--_radius) / 2);
  }
  .kept-link:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
  .kept-actions { display: flex; flex-wrap: wrap; gap: 8px 12px; }
  .kept .buy-bar .add-note, .kept .buy-bar .field-error, .kept .buy-bar .added { grid-column: 1 / -1; }
  .kept-picture { width: 100%; max-width: var(--sq-preview-height, 320px); aspect-ratio: 1; justify-self: center; border-radius: var(--_radius); background: #fff; }
  .kept-title { font-size: 1.1em; margin: 0; }
  /* Reserved, not in a cart: a plain statement, not a success. */
  .added.reserved { color: inherit; font-weight: 500; }

  /* multiple: one column of rows under a compact drop zone, the total and "Add all to cart" below. */
  .root.multi { grid-template-columns: minmax(0, 1fr); grid-template-areas: none; }
  .multi .buy-bar { grid-area: auto; }
  .dropzone.compact { height: auto; padding: var(--_gap); }
  .dropzone.compact p:first-child { margin: 0; }
  .parts { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; min-width: 0; }
  .part {
    display: grid; gap: 8px 12px; min-width: 0; padding: 12px;
    grid-template-columns: 64px minmax(0, 1fr) auto; grid-template-areas: 'thumb head remove' 'body body body';
    border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg);
  }
  .part[data-status='failed'] { border-color: var(--_error); }
  /* Priced at a size in doubt: a question for the shopper, not yet a price to sell. */
  .part[data-status='confirm-size'] { border-color: var(--_accent); }
  .thumb {
    grid-area: thumb; width: 64px; height: 64px; display: grid; place-content: center;
    border-radius: calc(var(--_radius) / 2); background: var(--_surface); color: var(--_muted); font-size: 0.75em;
  }
  .thumb img { width: 64px; height: 64px; display: block; }
  .part-head { grid-area: head; display: grid; gap: 4px; align-content: center; min-width: 0; }
  .part-facts { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 0.875em; color: var(--_muted); }
  .misfit-text { color: var(--_error); font-weight: 600; }
  .status { font-weight: 600; }
  .status-priced { color: var(--_success); }
  .status-failed { color: var(--_error); }
  .status-confirm-size { color: var(--_accent); }
  .remove { grid-area: remove; align-self: start; min-height: 44px; }
  .part-body { grid-area: body; display: grid; gap: 12px; min-width: 0; }
  /* Two options side by side even on a phone, so that a list of parts stays short. */
  .part .options { grid-template-columns: repeat(auto-fit, minmax(120px, 1fr)); }
  .part-price { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
  .part-price .part-facts { flex-basis: 100%; }
  .part-price strong { font-size: 1.25em; }
  /* Compare all materials and Save or share: two buttons side by side while closed, each the row's width once open. */
  .part-more { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: start; }
  .part-more > * { flex: 0 1 auto; min-width: 0; margin: 0; }
  .part-more > :has(.material-prices, .kept-link, .field-error) { flex-basis: 100%; }
  .part-more .keep:not(:has(.kept-link)) { padding: 0; border: 0; background: none; }
  .add-note:empty, .add-blockers:empty { display: none; }
  @container (min-width: 680px) {
    /* A row's options on one line: material, colour, the wider quality, infill, quantity. */
    .part .options { grid-template-columns: repeat(2, minmax(0, 1fr)) minmax(0, 2fr) repeat(2, minmax(0, 1fr)); }
    .part .field.wide { grid-column: auto; }
    .multi .buy-bar { grid-template-columns: minmax(0, 1fr) minmax(200px, auto); align-items: center; }
    .multi .add-note, .multi .buy-bar .added { grid-column: 1 / -1; }
  }
  @container (max-width: 679.98px) {
    .multi .buy-bar .add-note { grid-column: 1 / -1; }
  }
  @container (max-width: 479.98px) {
    /* On a phone the name gets the row's whole width (it wraps between words): the thumbnail and Remove above it. */
    .part { grid-template-columns: 64px minmax(0, 1fr); grid-template-areas: 'thumb remove' 'head head' 'body body'; }
    .remove { justify-self: end; }
  }
  /* The offer's extras (offer-view.ts): swatch, description, the side-by-side material prices. */
  .swatch {
    display: inline-block; width: 0.9em; height: 0.9em; border-radius: 50%; margin-inline-end: 0.35em;
    vertical-align: -0.1em; box-shadow: inset 0 0 0 1px rgb(0 0 0 / 0.25);
  }
  .options .material-description, .options .breaks { grid-column: 1 / -1; }
  .compare { margin-top: 12px; }
  .part-more .compare { margin-top: 0; }
  .panel > .breaks { margin-top: 8px; }
  /* Request a quote: the shopper's contact, in the panel (never in the phone's sticky bar). */
  .rfq { display: grid; gap: 10px; padding: 12px; border: 1px solid var(--_border); border-radius: var(--_radius); }
  .rfq p { margin: 0; }
  .rfq input, .rfq textarea {
    font: inherit; width: 100%; min-height: 40px; padding: 8px; color: inherit; background: var(--_bg);
    border: 1px solid var(--_border); border-radius: calc(var(--_radius) / 2);
  }
  .rfq textarea { resize: vertical; }
  .rfq textarea[aria-invalid='true'] { border-color: var(--_error); border-width: 2px; }
  .rfq textarea:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
  .rfq-offer { display: grid; gap: 8px; }
  .material-prices { list-style: none; margin: 8px 0 0; padding: 0; display: grid; gap: 4px; }
  .material-prices button {
    display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 2px 12px; width: 100%; text-align: start;
    min-height: 44px; overflow-wrap: break-word;
  }
  .material-prices button[aria-pressed='true'] { outline: 2px solid var(--_accent); }
  .material-prices .hint { grid-column: 1 / -1; }
  .material-amount { font-weight: 600; white-space: nowrap; }
  .visually-hidden {
    position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap;
  }
`;
