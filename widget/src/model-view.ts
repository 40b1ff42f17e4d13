// The parts' pictures in 3D (preview.ts draws them): without `multiple`, the one 3D view of the part that the shopper
// turns and zooms, sized to its box; with `multiple`, each row's 128 px picture, drawn by one off-screen view. A Lit
// controller of the element: after each render the view follows its box's size; when the element leaves the page it
// gives its WebGL contexts back (browsers keep about 16), and draws the part again when it comes back.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { dimensions } from './format.ts';
import type { PartFlow } from './part-flow.ts';
import { Preview } from './preview.ts';
import { swatchOf } from './selection.ts';
import type { BuildVolume, WidgetConfig } from './types.ts';

type HostElement = ReactiveControllerHost & HTMLElement & { readonly renderRoot: HTMLElement | DocumentFragment };

export interface ModelViewHost {
  readonly config: WidgetConfig | null;
  readonly locale: string | undefined;
  /** The browser could not draw 3D: the dimensions are shown alone. */
  readonly previewUnavailable: boolean;
  noPreview(): void;
  /** The part the 3D view shows: the single part; none with `multiple`. */
  readonly viewed: PartFlow | null;
  /** Whether the part is still a row of the list (it may have been removed while it was read). */
  isRow(part: PartFlow): boolean;
}

export class ModelView implements ReactiveController {
  private preview: Preview | null = null;
  /** With `multiple`: the off-screen view that draws each row's picture. */
  private thumbnailer: Preview | null = null;
  /** With `multiple`: each row's 128 px picture, by the part's id. */
  readonly thumbnails = new Map<number, string>();
  private readonly resize = new ResizeObserver(([entry]) => {
    if (entry) this.preview?.resize(entry.contentRect.width, entry.contentRect.height);
  });
  /** The box the view is sized to. */
  private observed: Element | null = null;

  constructor(
    private readonly element: HostElement,
    private readonly host: ModelViewHost,
  ) {
    element.addController(this);
  }

  /** The 3D view's canvas, once there is one. */
  get canvas(): HTMLCanvasElement | null {
    return this.preview?.canvas ?? null;
  }

  hostConnected(): void {
    const part = this.host.viewed;
    if (part?.parsed && !this.preview) this.show(part);
  }

  hostDisconnected(): void {
    this.resize.disconnect();
    this.observed = null;
    this.preview?.dispose();
    this.preview = null;
    this.thumbnailer?.dispose();
    this.thumbnailer = null;
  }

  hostUpdated(): void {
    const viewport = this.element.renderRoot.querySelector('.viewport');
    if (viewport === this.observed) return;
    this.resize.disconnect();
    this.observed = viewport;
    if (viewport) this.resize.observe(viewport);
  }

  /** Shows the single part's model in the 3D view, named for screen readers with its size and keys. */
  show(part: PartFlow): void {
    const preview = this.ensurePreview();
    const { parsed, state: s } = part;
    if (!preview || !parsed || !s.model) return;
    preview.setModel(parsed, s.model.fits);
    preview.setModelColor(swatchOf(this.host.config, s.selection));
    const label = `3D preview of ${s.model.name}, ${dimensions(s.model.size, this.host.locale)}. Arrow keys rotate, plus and minus zoom, 0 resets the view.`;
    preview.canvas.setAttribute('aria-label', label);
    this.element.requestUpdate();
  }

  recolor(part: PartFlow): void {
    this.preview?.setModelColor(swatchOf(this.host.config, part.state.selection));
  }

  clear(): void {
    this.preview?.clearModel();
  }

  setBuildVolume(volume: BuildVolume): void {
    this.preview?.setBuildVolume(volume);
  }

  /** A square PNG data URL of the 3D view; '' without one. */
  snapshot(size: number): string {
    return this.preview ? this.preview.snapshot(size) : '';
  }

  /** Draws a row's picture (once read, and again when its colour or size changes). */
  drawThumbnail(part: PartFlow): void {
    if (!part.parsed || !part.state.model || !this.host.isRow(part)) return;
    if (!this.thumbnailer && !this.host.previewUnavailable) {
      try {
        this.thumbnailer = new Preview(themeColors(this.element));
        this.thumbnailer.resize(256, 256);
      } catch {
        this.host.noPreview();
      }
    }
    const t = this.thumbnailer;
    if (!t) return;
    t.setModel(part.parsed, part.state.model.fits);
    t.setModelColor(swatchOf(this.host.config, part.state.selection));
    this.thumbnails.set(part.id, t.snapshot(128));
    t.clearModel();
    this.element.requestUpdate();
  }

  /** The view's keys, on its canvas: arrows rotate, plus and minus zoom, 0 and Home reset. */
  viewKey(e: KeyboardEvent): void {
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

  zoom(factor: number): void {
    this.preview?.zoom(factor);
  }

  resetView(): void {
    this.preview?.resetView();
  }

  private ensurePreview(): Preview | null {
    if (this.preview || this.host.previewUnavailable) return this.preview;
    try {
      this.preview = new Preview(themeColors(this.element));
    } catch {
      this.host.noPreview();
      return null;
    }
    const canvas = this.preview.canvas;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('tabindex', '0');
    canvas.setAttribute('part', 'canvas');
    if (this.host.config) this.preview.setBuildVolume(this.host.config.build_volume);
    return this.preview;
  }
}

/** The model's, plate's and grid's colours: the page may set them (`--sq-model-color`, …). */
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
