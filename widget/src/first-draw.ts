// When a part's 3D preview is first drawn. Drawing the first frame of a large mesh is a long task on a slow machine
// (seconds in software WebGL), and the first estimate's request, its answer and the figure on screen would wait
// behind it: so the preview waits for that figure to be painted, never longer than PREVIEW_WAITS_MS after the parse.
/** The longest the 3D preview waits for the first figure before it is drawn anyway. */
const PREVIEW_WAITS_MS = 1000;

export class FirstDraw {
  /** Draws the preview once, unless its file's run stopped; null when it is drawn (or none waits). */
  private waiting: (() => void) | null = null;

  /** The file was read: `draw` runs once, when the figure is painted (figureShown) or after PREVIEW_WAITS_MS. */
  wait(draw: () => void, signal: AbortSignal): void {
    let drawn = false;
    const once = () => {
      if (drawn || signal.aborted) return;
      drawn = true;
      if (this.waiting === once) this.waiting = null;
      draw();
    };
    this.waiting = once;
    window.setTimeout(once, PREVIEW_WAITS_MS);
  }

  /** The first figure is on screen (or none will be): the preview is drawn once it has been painted. */
  figureShown(): void {
    const draw = this.waiting;
    if (draw) requestAnimationFrame(() => window.setTimeout(draw, 0));
  }
}
