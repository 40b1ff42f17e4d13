// Coarse to fine (docs/instant-price.md): a dropped part's first figure is the coarse stage's estimate, shown before
// the file has reached the server and before the fine stage's estimate, which then replaces it; the exact price
// replaces both. Against a real server; the requests that would bring the next figure are held at the page until
// the figure before has shown, so the order is the widget's, whatever the machine's speed.
import { $, assert, assertEqual, cleanup, cubeStl, fixture, nextEvent, shadow, until } from './helpers.ts';

afterEach(cleanup);

/** Holds the page's fetches that `which` picks until let through (let(), or all by release()); records what each sent. */
function holdFetches(which: (method: string, path: string, body: any) => boolean) {
  const native = window.fetch;
  const waiting: { path: string; body: any; go: () => void }[] = [];
  const sent: { path: string; body: any }[] = [];
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(input instanceof Request ? input.url : String(input), location.href).pathname;
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    sent.push({ path, body });
    if (which(init?.method ?? 'GET', path, body)) await new Promise<void>((go) => waiting.push({ path, body, go }));
    return native(input, init);
  };
  const let_ = (pick: (path: string, body: any) => boolean) => {
    for (const w of waiting.filter((w) => pick(w.path, w.body))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.go();
    }
  };
  return {
    sent,
    held: () => waiting.length,
    let: let_,
    release() {
      window.fetch = native;
      let_(() => true);
    },
  };
}

/** Every sq-estimate the page is told of, in order. */
function estimatesTold() {
  const told: any[] = [];
  const listen = (e: Event) => told.push((e as CustomEvent).detail);
  document.addEventListener('sq-estimate', listen);
  return { told, stop: () => document.removeEventListener('sq-estimate', listen) };
}

describe('coarse to fine', () => {
  it("a dropped part shows the coarse stage's estimate first, before its upload and the fine one; then each replaces it", async () => {
    const el = await fixture();
    const estimates = estimatesTold();
    // The upload cannot start (its upload id is held) and the fine stage's estimate is not priced until released.
    const fineEstimate = (path: string, body: any) => path.endsWith('/v2/widget/estimate') && !!body?.features;
    const hold = holdFetches((_method, path, body) => path.endsWith('/v2/file/upload-id') || fineEstimate(path, body));
    const quoted = nextEvent('sq-quote', 120_000);
    try {
      void el.load(cubeStl(18));
      await until(() => estimates.told.length > 0, 'the first estimate');
      const [first] = estimates.told;
      assertEqual(first.estimate.method, 'coarse', 'the first figure is the coarse stage’s');
      assertEqual(first.file_id, null, 'told before the file has arrived');
      const shown = await until(() => shadow(el).querySelector<HTMLElement>('[data-estimate]'), 'the estimate shown');
      assert(/≈/.test(shown.textContent!) && /Estimate/.test(shown.textContent!), `marked: ${shown.textContent}`);
      assert(shown.textContent!.includes(String(Math.floor(first.estimate.total_price))), 'its price is shown');
      const add = $(el, '[part~=add-button]');
      assert(add.hasAttribute('disabled') || add.getAttribute('aria-disabled') === 'true', 'an estimate is not sold');
      // Both held requests were asked: the upload id (the upload starts beside the parse) and the fine stage's.
      await until(() => hold.held() === 2, 'the upload id and the fine estimate asked');
      const posted = hold.sent.filter((s) => s.path.endsWith('/v2/widget/estimate')).map((s) => s.body);
      assert(!!posted[0].coarse_features && !posted[0].features, 'the coarse features were posted first');
      assert(!!posted[1].features && !posted[1].coarse_features, 'then the fine ones');
      assertEqual(estimates.told.length, 1, 'nothing else yet');
      // The fine stage's estimate is let through first: it replaces the coarse one while the upload still waits.
      hold.let(fineEstimate);
      await until(() => estimates.told.length > 1, 'the fine estimate');
      const fine = estimates.told[1];
      assert(fine.estimate.method !== 'coarse', `the fine stage's estimate replaces it: ${fine.estimate.method}`);
      assertEqual(fine.file_id, null, 'still before the file has arrived');
      await until(
        () =>
          shadow(el)
            .querySelector('[data-estimate]')
            ?.textContent?.includes(String(Math.floor(fine.estimate.total_price))),
        'the fine estimate shown',
      );
    } finally {
      hold.release();
    }
    const { detail } = await quoted;
    await el.updateComplete;
    assert(!shadow(el).querySelector('[data-estimate]'), 'the exact price replaced the estimate');
    assert($(el, '[part~=amount]').textContent!.includes(String(Math.floor(detail.total_price))), 'and is shown');
    estimates.stop();
  });
});
