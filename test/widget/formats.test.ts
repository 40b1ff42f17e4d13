// The project's own parsers running in the widget's Web Worker: each format measured as the reference
// says, hostile files refused, and the page kept responsive while a large model is read.
import { $, assert, assertEqual, cleanup, fixture, nextEvent, until } from './helpers.ts';

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

  it('the page stays responsive while 3DBenchy.stl (11 MB) is parsed', async () => {
    const el = await fixture();
    const file = await corpusFile('stl/3DBenchy.stl');
    // The pauses of the main thread, measured by a 10 ms timer, until the parsed model reaches the
    // element (its badge is rendered). The first WebGL frame after that is not counted: with no GPU,
    // as here, Chromium rasterises it in software and the page waits on that, not on parsing.
    const pauses: number[] = [];
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      pauses.push(now - last);
      last = now;
    }, 10);
    const parsed = new Promise<number>((resolve) => {
      const watch = new MutationObserver(() => {
        if (!el.shadowRoot!.querySelector('[part~=dimensions]')) return;
        watch.disconnect();
        resolve(performance.now());
      });
      watch.observe(el.shadowRoot!, { childList: true, subtree: true });
    });
    const started = performance.now();
    void el.load(file);
    const parsedAt = await parsed;
    clearInterval(timer);
    (el as unknown as { reset(): void }).reset();
    const longest = Math.max(0, ...pauses);
    assert(pauses.length > 3, 'the timer kept running while the file was read and parsed');
    assert(
      longest < 100,
      `the main thread paused for ${Math.round(longest)} ms while the model was parsed (${Math.round(parsedAt - started)} ms)`,
    );
  });
});
