// The three.js preview: the model standing on a build plate the size of the printer, inside the
// outline of the build volume, with orbit and zoom (OrbitControls; keys and buttons through the
// element). Rendering is on demand — only when something moved — so an idle widget costs nothing.
// Z is up, as in the model files and the slicer.
import {
  BoxGeometry,
  BufferAttribute,
  BufferGeometry,
  DirectionalLight,
  EdgesGeometry,
  Group,
  HemisphereLight,
  LineBasicMaterial,
  LineSegments,
  Mesh,
  MeshLambertMaterial,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
  Vector3,
  WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import type { ParsedPreview } from './parse-protocol.ts';
import type { BuildVolume } from './types.ts';

export interface PreviewColors {
  plate: string;
  grid: string;
  model: string;
  misfit: string;
}

const FOV = 35;
const VIEW_DIRECTION = new Vector3(0.9, -1.6, 1.1).normalize();

export class Preview {
  readonly canvas: HTMLCanvasElement;
  private readonly renderer: WebGLRenderer;
  private readonly scene = new Scene();
  private readonly camera = new PerspectiveCamera(FOV, 1, 0.5, 20000);
  private readonly controls: OrbitControls;
  private readonly light = new DirectionalLight(0xffffff, 1.6);
  private plate = new Group();
  private model: Mesh<BufferGeometry, MeshLambertMaterial> | null = null;
  private home = { target: new Vector3(), position: new Vector3() };
  private fits = true;
  private frame = 0;

  /** Throws when the browser has no WebGL; the element then shows the dimensions alone. */
  constructor(private readonly colors: PreviewColors) {
    this.canvas = document.createElement('canvas');
    this.renderer = new WebGLRenderer({ canvas: this.canvas, antialias: true, alpha: true });
    this.renderer.setPixelRatio(Math.min(devicePixelRatio, 2));
    this.camera.up.set(0, 0, 1);
    // The light rides with the camera so the side the shopper looks at is always lit.
    this.camera.add(this.light);
    this.light.position.set(0.5, 1, 0.2);
    this.scene.add(this.camera, new HemisphereLight(0xffffff, 0x6b7280, 1.2), this.plate);
    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.addEventListener('change', () => this.requestRender());
  }

  setBuildVolume(v: BuildVolume): void {
    this.scene.remove(this.plate);
    disposeTree(this.plate);
    this.plate = buildPlate(v, this.colors);
    this.scene.add(this.plate);
    this.applyFit();
  }

  setModel(parsed: ParsedPreview, fits: boolean): void {
    this.clearModel();
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new BufferAttribute(parsed.positions, 3));
    geometry.setIndex(new BufferAttribute(parsed.indices, 1));
    const [sx, sy] = parsed.size;
    const [mx, my, mz] = parsed.min;
    // Flat shading takes each face's normal from screen-space derivatives: sharp edges stay sharp
    // without per-corner normals, so the welded mesh is drawn as it is (a quarter of the bytes).
    this.model = new Mesh(geometry, new MeshLambertMaterial({ color: this.colors.model, flatShading: true }));
    // Centred on the plate and standing on it, as the slicer places it.
    this.model.position.set(-mx - sx / 2, -my - sy / 2, -mz);
    this.scene.add(this.model);
    this.fits = fits;
    this.applyFit();
    this.frameModel(parsed.size);
  }

  clearModel(): void {
    if (!this.model) return;
    this.scene.remove(this.model);
    disposeTree(this.model);
    this.model = null;
    this.requestRender();
  }

  /** Tints the model with the chosen filament colour, when the colour's name is one CSS knows. */
  setModelColor(name: string): void {
    const css = name && CSS.supports('color', name) ? name : this.colors.model;
    this.model?.material.color.set(this.fits ? css : this.colors.misfit);
    this.requestRender();
  }

  resize(width: number, height: number): void {
    if (width === 0 || height === 0) return;
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  zoom(factor: number): void {
    if (factor > 1) this.controls.dollyIn(factor);
    else this.controls.dollyOut(1 / factor);
    this.controls.update();
  }

  rotate(left: number, up: number): void {
    this.controls.rotateLeft(left);
    this.controls.rotateUp(up);
    this.controls.update();
  }

  resetView(): void {
    this.controls.target.copy(this.home.target);
    this.camera.position.copy(this.home.position);
    this.controls.update();
  }

  /**
   * A square PNG of the model alone from the starting viewpoint, on a transparent background. Rendered
   * now and read at once: the drawing buffer is not kept between frames.
   */
  snapshot(size = 128): string {
    const saved = { position: this.camera.position.clone(), target: this.controls.target.clone() };
    this.plate.visible = false;
    this.camera.position.copy(this.home.position);
    this.camera.lookAt(this.home.target);
    this.renderer.render(this.scene, this.camera);
    const png = this.squareCrop(size);
    this.plate.visible = true;
    this.camera.position.copy(saved.position);
    this.controls.target.copy(saved.target);
    this.controls.update();
    this.requestRender(); // the snapshot frame went to the visible canvas: draw the shopper's view again
    return png;
  }

  private squareCrop(size: number): string {
    const src = this.canvas;
    const side = Math.min(src.width, src.height);
    const out = document.createElement('canvas');
    out.width = out.height = size;
    out.getContext('2d')!.drawImage(src, (src.width - side) / 2, (src.height - side) / 2, side, side, 0, 0, size, size);
    return out.toDataURL('image/png');
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    this.controls.dispose();
    disposeTree(this.scene);
    this.renderer.dispose();
    this.renderer.forceContextLoss();
  }

  private applyFit(): void {
    if (this.model) this.model.material.color.set(this.fits ? this.colors.model : this.colors.misfit);
    const outline = this.plate.getObjectByName('volume') as LineSegments<BufferGeometry, LineBasicMaterial> | undefined;
    outline?.material.color.set(this.fits ? this.colors.grid : this.colors.misfit);
    this.requestRender();
  }

  private frameModel(size: [number, number, number]): void {
    const radius = Math.max(Math.hypot(...size) / 2, 5);
    const distance = (radius / Math.sin(((FOV / 2) * Math.PI) / 180)) * 1.1;
    this.home.target.set(0, 0, size[2] / 2);
    this.home.position.copy(VIEW_DIRECTION).multiplyScalar(distance).add(this.home.target);
    this.controls.maxDistance = distance * 6;
    this.resetView();
  }

  private requestRender(): void {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.renderer.render(this.scene, this.camera));
  }
}

function buildPlate(v: BuildVolume, colors: PreviewColors): Group {
  const group = new Group();
  const surface = new Mesh(new PlaneGeometry(v.x, v.y), new MeshLambertMaterial({ color: colors.plate }));
  surface.position.z = -0.05; // just under the model's first layer, so the two never z-fight
  const grid = new LineSegments(
    gridLines(v, 10),
    new LineBasicMaterial({ color: colors.grid, transparent: true, opacity: 0.5 }),
  );
  const outline = new LineSegments(
    new EdgesGeometry(new BoxGeometry(v.x, v.y, v.z)),
    new LineBasicMaterial({ color: colors.grid }),
  );
  outline.name = 'volume';
  outline.position.z = v.z / 2;
  group.add(surface, grid, outline);
  return group;
}

/** Lines every `step` mm across the plate, centred on its middle. */
function gridLines(v: BuildVolume, step: number): BufferGeometry {
  const points: number[] = [];
  const hx = v.x / 2,
    hy = v.y / 2;
  for (let x = -Math.floor(hx / step) * step; x <= hx; x += step) points.push(x, -hy, 0, x, hy, 0);
  for (let y = -Math.floor(hy / step) * step; y <= hy; y += step) points.push(-hx, y, 0, hx, y, 0);
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(new Float32Array(points), 3));
  return geometry;
}

function disposeTree(root: { traverse(cb: (o: object) => void): void }): void {
  root.traverse((o) => {
    const { geometry, material } = o as { geometry?: BufferGeometry; material?: { dispose(): void } };
    geometry?.dispose();
    material?.dispose();
  });
}
