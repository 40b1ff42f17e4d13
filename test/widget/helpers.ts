// Browser-side helpers of the component tests: the server the config started, fixtures of the
// element loaded from that server by URL (as a shop would), events, small models and assertions.
import { BOX_TRIANGLES } from '../helpers/meshes.ts';

export interface SliceQuoteElement extends HTMLElement {
  config: { materials: { name: string }[] } | null;
  quote: { quote_id: string; total_price: number } | null;
  load(file: File): Promise<void>;
  snapshot(size?: number): string;
  /** Lit's: resolves once the element has rendered its latest state. */
  readonly updateComplete: Promise<boolean>;
}

let envPromise: Promise<{ api: string; key: string }> | null = null;

export function testEnv(): Promise<{ api: string; key: string }> {
  envPromise ??= fetch('/__sq-env').then((r) => r.json());
  return envPromise;
}

const mounted: HTMLElement[] = [];

/** A fresh <slice-quote> in the page; `ready` waits until the merchant's options are shown. */
export async function fixture(
  attrs: Record<string, string> = {},
  opts: { ready?: boolean } = {},
): Promise<SliceQuoteElement> {
  const { api, key } = await testEnv();
  await import(/* @vite-ignore */ `${api}/widget/slice-quote.js`);
  const el = document.createElement('slice-quote') as SliceQuoteElement;
  for (const [name, value] of Object.entries({ api, key, ...attrs })) el.setAttribute(name, value);
  document.body.append(el);
  mounted.push(el);
  if (opts.ready !== false) await until(() => shadow(el).querySelector('select#material'), 'the options to load');
  return el;
}

export function cleanup(): void {
  for (const el of mounted.splice(0)) el.remove();
}

export function shadow(el: HTMLElement): ShadowRoot {
  return el.shadowRoot!;
}

export function $(el: HTMLElement, selector: string): HTMLElement {
  const found = shadow(el).querySelector(selector);
  if (!found) throw new Error(`no ${selector} in <slice-quote>`);
  return found as HTMLElement;
}

// The last sq-error, so that a test waiting in vain for another event can say what went wrong.
let lastError: unknown = null;
document.addEventListener('sq-error', (e) => (lastError = (e as CustomEvent).detail));

/** The next `type` event that reaches the document: proof that it bubbles out of the shadow root. */
export function nextEvent<T = any>(type: string, timeoutMs = 90_000): Promise<CustomEvent<T>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${type} event within ${timeoutMs} ms (last sq-error: ${JSON.stringify(lastError)})`)),
      timeoutMs,
    );
    document.addEventListener(
      type,
      (e) => {
        clearTimeout(timer);
        resolve(e as CustomEvent<T>);
      },
      { once: true },
    );
  });
}

/** Counts the requests the page makes from now on whose URL ends with `path` (as the network sees them). */
export function countRequests(path: string): { count(): number; stop(): void } {
  let seen = 0;
  const observer = new PerformanceObserver((list) => {
    seen += list.getEntries().filter((e) => new URL(e.name).pathname.endsWith(path)).length;
  });
  observer.observe({ type: 'resource' });
  return {
    count: () => {
      seen += observer.takeRecords().filter((e) => new URL(e.name).pathname.endsWith(path)).length;
      return seen;
    },
    stop: () => observer.disconnect(),
  };
}

/**
 * Polls probe until it answers a truthy value. No clock: a loaded host only makes the wait longer, and the runner's
 * hang guard (web-test-runner.config.mjs) ends what never comes. After `reportAfterMs` of polls, and each time
 * their count doubles, the console says what the test is still waiting for.
 */
export async function until<T>(
  probe: () => T | null | undefined | false,
  what: string,
  reportAfterMs = 30_000,
): Promise<T> {
  let report = Math.max(1, Math.ceil(reportAfterMs / 50));
  for (let polls = 1; ; polls++) {
    const v = probe();
    if (v) return v;
    if (polls === report) {
      console.warn(`still waiting for ${what} after ${polls} polls`);
      report *= 2;
    }
    await new Promise((r) => setTimeout(r, 50)); // the interval between two polls
  }
}

/** The 12 triangles of an x × y × z mm box standing on z = 0. */
function boxTriangles(x: number, y: number, z: number): number[][][] {
  const v = [
    [0, 0, 0],
    [x, 0, 0],
    [x, y, 0],
    [0, y, 0],
    [0, 0, z],
    [x, 0, z],
    [x, y, z],
    [0, y, z],
  ];
  return BOX_TRIANGLES.map((f) => f.map((i) => v[i]!)); // every face index is one of the 8 corners
}

const cubeTriangles = (size: number) => boxTriangles(size, size, size);

/** An ASCII STL box of x × y × z mm. */
export function boxStl(x: number, y: number, z: number, name = 'box.stl'): File {
  const facets = boxTriangles(x, y, z).map(
    (t) => `facet normal 0 0 0\n outer loop\n${t.map((p) => `  vertex ${p.join(' ')}`).join('\n')}\n endloop\nendfacet`,
  );
  return new File([`solid box\n${facets.join('\n')}\nendsolid box\n`], name, { type: 'model/stl' });
}

/** An ASCII STL cube of `size` mm. */
export function cubeStl(size: number, name = 'cube.stl'): File {
  return boxStl(size, size, size, name);
}

/** A binary STL cube whose header promises 12 triangles but whose body stops inside the 7th. */
export function truncatedStl(): File {
  const triangles = cubeTriangles(20);
  const bytes = new Uint8Array(84 + 50 * triangles.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(80, triangles.length, true);
  triangles.forEach((t, i) => {
    t.flat().forEach((c, k) => {
      view.setFloat32(84 + i * 50 + 12 + k * 4, c, true);
    });
  });
  return new File([bytes.subarray(0, 84 + 50 * 6 + 25)], 'truncated.stl');
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

export function assertEqual<T>(actual: T, expected: T, message: string): void {
  if (actual !== expected) throw new Error(`${message}: expected ${String(expected)}, got ${String(actual)}`);
}

interface AxeResult {
  violations: { id: string; impact: string; nodes: { target: unknown }[] }[];
}
declare global {
  interface Window {
    axe?: { run(context: Element, options?: object): Promise<AxeResult> };
  }
}

/** Runs axe-core on the element; fails listing every violation. */
export async function axe(el: HTMLElement): Promise<void> {
  if (!window.axe) {
    const script = document.createElement('script');
    script.src = '/node_modules/axe-core/axe.min.js';
    document.head.append(script);
    await new Promise((resolve, reject) => Object.assign(script, { onload: resolve, onerror: reject }));
  }
  const result = await window.axe!.run(el, { resultTypes: ['violations'] });
  const summary = result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
  );
  assertEqual(summary.join('\n'), '', 'axe violations');
}
