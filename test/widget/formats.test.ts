// The project's own parsers running in the widget's Web Worker: each format measured as the reference
// says, hostile files refused, and a large model parsed off the page's main thread.
import { $, assert, assertEqual, cleanup, fixture, nextEvent, type SliceQuoteElement, until } from './helpers.ts';

afterEach(cleanup);

async function corpusFile(rel: string): Promise<File> {
  const res = await fetch(`/__corpus/${rel}`);
  assert(res.ok, `corpus file ${rel}`);
  return new File([await res.arrayBuffer()], rel.split('/').pop()!);
}

async function reference(rel: string): Promise<{ size_mm: number[] }> {
  return (await (await fetch('/__corpus/reference-measurements.json')).json())[rel];
}

describe('formats', () => {
  for (const rel of ['3mf/3DBenchy.3mf', 'obj/cow.obj', 'stl/cube20_ascii.stl', 'stl/heartgears.stl']) {
    it(`${rel} is measured in the browser as the reference says`, async () => {
      const el = await fixture();
      void el.load(await corpusFile(rel));
      const badge = await until(() => el.shadowRoot!.querySelector('[part~=dimensions]'), 'the preview', 60_000);
      const shown = badge.textContent!.match(/[\d.]+/g)!.map(Number);
      const expected = (await reference(rel)).size_mm;
      shown.forEach((v, i) => {
        assert(Math.abs(v - expected[i]!) <= 0.05, `${rel} size ${shown} vs ${expected}`);
      });
      (el as unknown as { reset(): void }).reset(); // no need to slice it
    });
  }

  it('a 3MF in inches is converted: a 10-inch cube does not fit a 250 × 210 × 210 mm printer', async () => {
    const el = await fixture();
    const errored = nextEvent('sq-error', 30_000);
    await el.load(await corpusFile('3mf/cube10_inch_units.3mf'));
    assertEqual((await errored).detail.code, 'does_not_fit', 'code');
    assert(/254\.0 × 254\.0 × 254\.0 mm/.test($(el, '[part~=dimensions]').textContent!), 'shown in millimetres');
  });

  for (const rel of [
    'broken/3mf_zip_bomb_1GiB.3mf',
    'broken/3mf_billion_laughs.3mf',
    'broken/obj_garbage.obj',
    'broken/png_renamed.stl',
  ]) {
    it(`${rel} is refused with a named error`, async () => {
      const el = await fixture();
      const errored = nextEvent('sq-error', 60_000);
      await el.load(await corpusFile(rel));
      const { detail } = await errored;
      assert(
        detail.code && detail.code !== 'parse_failed' && detail.retryable === false,
        `${rel}: ${JSON.stringify(detail)}`,
      );
    });
  }

  // The main thread's longest pause while the widget reads and parses this file is timed by
  // `npm run bench -- widget`, where timing belongs; here, that the parse happens where it cannot pause the page.
  it('3DBenchy.stl (11 MB) is parsed in the parse worker, not on the page', async () => {
    const el = await fixture();
    const order = await widgetLoad(el, await corpusFile('stl/3DBenchy.stl'));
    assertEqual(order.workers, 1, 'parse workers started');
    assertEqual(order.first, 'worker answer', 'what came first');
  });
});

/**
 * One load of `file` by the widget: how many parse workers it started, and whether the parse worker's answer
 * reached the page before the size badge was shown (the badge is drawn from that answer, never from a parse
 * of the page's own). The element is reset afterwards.
 */
async function widgetLoad(
  el: SliceQuoteElement,
  file: File,
): Promise<{ workers: number; first: 'worker answer' | 'size badge' }> {
  const NativeWorker = window.Worker;
  let workers = 0;
  let answered!: () => void;
  const answer = new Promise<'worker answer'>((resolve) => (answered = () => resolve('worker answer')));
  window.Worker = class extends NativeWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      if (options?.name !== 'slice-quote-parser') return;
      workers++;
      // Registered before the widget sets onmessage, so this runs first.
      this.addEventListener('message', () => answered(), { once: true });
    }
  };
  const badge = new Promise<'size badge'>((resolve) => {
    const watch = new MutationObserver(() => {
      if (!el.shadowRoot!.querySelector('[part~=dimensions]')) return;
      watch.disconnect();
      resolve('size badge');
    });
    watch.observe(el.shadowRoot!, { childList: true, subtree: true });
  });
  let first: 'worker answer' | 'size badge';
  try {
    void el.load(file);
    first = await Promise.race([answer, badge]);
    await badge;
  } finally {
    window.Worker = NativeWorker;
  }
  (el as unknown as { reset(): void }).reset();
  return { workers, first };
}
