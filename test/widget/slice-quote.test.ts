// <slice-quote> against a real server: options from the merchant's configuration, events and their
// payloads, the does-not-fit and error states, quantity, and the attributes.
import {
  $,
  assert,
  assertEqual,
  cleanup,
  countRequests,
  cubeStl,
  fixture,
  nextEvent,
  shadow,
  truncatedStl,
  until,
} from './helpers.ts';

afterEach(cleanup);

/**
 * Holds the widget's quote requests (POST /v2/file/quote/…) at the page until release(), and records the bodies of
 * its estimate requests: what a shopper sees before the quote's own answer can be told apart from what it brought.
 */
function holdQuotes() {
  const native = window.fetch;
  const waiting: (() => void)[] = [];
  const estimates: { choices: { infill: number } }[] = [];
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(input instanceof Request ? input.url : String(input), location.href).pathname;
    if (path.endsWith('/v2/widget/estimate') && typeof init?.body === 'string') estimates.push(JSON.parse(init.body));
    if (init?.method === 'POST' && path.includes('/v2/file/quote/')) await new Promise<void>((go) => waiting.push(go));
    return native(input, init);
  };
  return {
    estimated: () => estimates,
    release() {
      window.fetch = native;
      for (const go of waiting.splice(0)) go();
    },
  };
}

describe('configuration', () => {
  it('shows the merchant materials and preselects the default one', async () => {
    const el = await fixture();
    const select = $(el, 'select#material') as HTMLSelectElement;
    assert(el.config && select.options.length === el.config.materials.length, 'one option per material');
    assert(select.value.length > 0, 'a material is selected');
    assert($(el, '[part~=add-button]').hasAttribute('disabled'), 'nothing to add before a quote');
  });

  it('the material attribute preselects a material, case-insensitively', async () => {
    const probe = await fixture();
    const last = probe.config!.materials.at(-1)!.name;
    const el = await fixture({ material: last.toLowerCase() });
    assertEqual(($(el, 'select#material') as HTMLSelectElement).value, last, 'preselected material');
  });

  it('an unreachable API is a retryable network_error', async () => {
    const errored = nextEvent('sq-error', 10_000);
    await fixture({ api: 'http://127.0.0.1:9' }, { ready: false });
    const e = await errored;
    assertEqual(e.detail.code, 'network_error', 'code');
    assertEqual(e.detail.retryable, true, 'retryable');
    await until(
      () => shadow(document.querySelector('slice-quote')!).querySelector('[part~=retry-button]'),
      'a retry button',
    );
  });
});

describe('quoting', () => {
  it('a dropped model is previewed, uploaded and priced: sq-quote', async () => {
    const el = await fixture();
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(20));
    const { detail } = await quoted;
    assert(detail.total_price > 0 && detail.unit_price === detail.total_price, 'a unit price for one piece');
    for (const k of ['quote_id', 'file_id', 'material', 'currency', 'estimated_time'])
      assert(detail[k], `sq-quote has ${k}`);
    assert(detail.filament_weight > 0 && detail.estimated_time_seconds > 0, 'weight and time');
    assert(/20\.0 × 20\.0 × 20\.0 mm/.test($(el, '[part~=dimensions]').textContent!), 'dimensions shown');
    const price = $(el, '[part~=price]');
    assertEqual(price.getAttribute('aria-live'), 'polite', 'the price is announced politely');
    assert(price.textContent!.includes(String(Math.floor(detail.total_price))), 'the price is shown');
  });

  it('changing the quantity updates the total without a new slice', async () => {
    const el = await fixture();
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(15));
    const first = (await quoted).detail;
    const calls = countRequests(`/v2/file/quote/${first.file_id}`);
    try {
      const requoted = nextEvent('sq-quote', 2000);
      const qty = $(el, '#quantity') as HTMLInputElement;
      qty.value = '3';
      qty.dispatchEvent(new Event('change'));
      const { detail } = await requoted;
      assertEqual(detail.quote_id, first.quote_id, 'same quote');
      assertEqual(detail.quantity, 3, 'quantity');
      assert(Math.abs(detail.total_price - first.unit_price * 3) < 0.011, 'total = 3 × unit');
      assert(!shadow(el).querySelector('[data-estimate]'), 'no estimate: the price per piece is known');
      assertEqual(calls.count(), 0, 'no quote request: a line total is arithmetic, not a slice');
    } finally {
      calls.stop();
    }
  });

  it('a changed choice shows its estimate at once, marked and not for sale, then the exact price', async () => {
    const el = await fixture();
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(16));
    const first = (await quoted).detail;
    const infill = $(el, 'select#infill') as HTMLSelectElement;
    const target = Number([...infill.options].map((o) => o.value).at(-1));
    assert(target !== first.fill_density, 'the densest infill is another choice');
    // The quote request is held until the estimate has shown: the estimate cannot have come from its slice.
    const hold = holdQuotes();
    let requoted: Promise<CustomEvent> | null = null;
    try {
      const estimated = nextEvent('sq-estimate', 30_000);
      infill.value = String(target);
      infill.dispatchEvent(new Event('change'));
      await el.updateComplete;
      assert(
        !shadow(el).querySelector('[part~=amount]'),
        "the last price is not shown as this choice's, dimmed or not",
      );
      const { detail } = await estimated;
      assertEqual(detail.file_id, first.file_id, 'the estimate of this part');
      assertEqual(hold.estimated().at(-1)?.choices.infill, target, 'measured in the browser for the new infill');
      const shown = await until(() => shadow(el).querySelector<HTMLElement>('[data-estimate]'), 'the estimate shown');
      assert(/≈/.test(shown.textContent!) && /Estimate/.test(shown.textContent!), `marked: ${shown.textContent}`);
      assert(shown.textContent!.includes(String(Math.floor(detail.estimate.total_price))), 'its price is shown');
      const add = $(el, '[part~=add-button]');
      assert(add.hasAttribute('disabled') || add.getAttribute('aria-disabled') === 'true', 'an estimate is not sold');
      assertEqual(el.quote?.quote_id, first.quote_id, 'no new price yet');
      requoted = nextEvent('sq-quote');
    } finally {
      hold.release();
    }
    const { detail } = await requoted!;
    assertEqual(detail.fill_density, target, 'the exact price of the new choice');
    await el.updateComplete;
    assert(!shadow(el).querySelector('[data-estimate]'), 'the exact price replaced the estimate');
    assert($(el, '[part~=amount]').textContent!.includes(String(Math.floor(detail.total_price))), 'and is shown');
  });

  it('going back to a choice already priced shows its price at once, without asking the server again', async () => {
    const el = await fixture();
    const select = $(el, 'select#material') as HTMLSelectElement;
    const initial = select.value;
    const other = [...select.options].map((o) => o.value).find((v) => v !== initial)!;
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(14));
    const first = (await quoted).detail;
    const requoted = nextEvent('sq-quote');
    select.value = other;
    select.dispatchEvent(new Event('change'));
    const second = (await requoted).detail;
    assert(second.quote_id !== first.quote_id, 'the other material has its own quote');
    const calls = countRequests(`/v2/file/quote/${first.file_id}`);
    try {
      const back = nextEvent('sq-quote');
      select.value = initial;
      select.dispatchEvent(new Event('change'));
      const { detail } = await back;
      assertEqual(detail.quote_id, first.quote_id, 'the first quote again');
      assertEqual(detail.total_price, first.total_price, 'at its price');
      assert($(el, '[part~=price]').textContent!.includes(String(Math.floor(first.total_price))), 'the price is shown');
      assertEqual(calls.count(), 0, 'no quote request was made');
    } finally {
      calls.stop();
    }
  });

  it('add to cart posts the line and emits sq-add-to-cart with the full payload', async () => {
    const el = await fixture();
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(20, 'part.stl'));
    const quote = (await quoted).detail;
    const added = nextEvent('sq-add-to-cart', 15_000);
    $(el, '[part~=add-button]').click();
    const { detail, bubbles, composed } = await added;
    assert(bubbles && composed, 'bubbles out of the shadow root');
    const keys = [
      'quote_id',
      'file_id',
      'file_name',
      'material',
      'color',
      'quantity',
      'unit_price',
      'total_price',
      'currency',
      'estimated_time',
      'estimated_time_seconds',
      'filament_weight',
      'minimum_unit_price',
      'thumbnail',
    ];
    for (const k of keys) assert(k in detail, `sq-add-to-cart has ${k}`);
    // The cart line's floor a quantity break stops at: the shop's minimum price per part, as the quote states it.
    const priced = el.quote as unknown as {
      minimum_unit_price?: number;
      price_breakdown: { minimum_unit_price: number | null };
    };
    const minimum = priced.minimum_unit_price ?? priced.price_breakdown.minimum_unit_price;
    assert(typeof minimum === 'number' && minimum > 0, `the shop has a minimum price per part: ${minimum}`);
    assertEqual(detail.minimum_unit_price, minimum, 'the minimum price per part of the cart line');
    assertEqual(detail.quote_id, quote.quote_id, 'quote id');
    assertEqual(detail.file_name, 'part.stl', 'file name');
    assertEqual(detail.quantity, 1, 'quantity');
    assertEqual(detail.unit_price, quote.unit_price, 'unit price (authoritative, from the server)');
    assert(/^data:image\/png;base64,/.test(detail.thumbnail), 'a PNG thumbnail');
    const img = new Image();
    img.src = detail.thumbnail;
    await img.decode();
    assertEqual(img.width, 128, 'thumbnail size');
    const note = await until(() => shadow(el).querySelector('[part~=added]'), 'the note under the button');
    assertEqual(
      note.textContent!.trim(),
      'No cart took your part yet: request a quote above, and the shop will send you a link to order it.',
      'no listener took the line: no false "Added to your cart", a quote request instead',
    );
    (detail as unknown as { accept(): void }).accept(); // the page's cart took it, after its own cart call
    const shown = () => shadow(el).querySelector('[part~=added]')?.textContent?.trim() ?? '';
    await until(() => /^Added 1 × part\.stl to your cart\.$/.test(shown()), 'now in the cart');
  });
});

describe('errors', () => {
  it('a broken file: sq-error with the parser code, shown in place, not retryable', async () => {
    const el = await fixture();
    const errored = nextEvent('sq-error', 15_000);
    await el.load(truncatedStl());
    const { detail } = await errored;
    assert(/truncat/.test(detail.code), `a truncation code, got ${detail.code}`);
    assertEqual(detail.retryable, false, 'retryable');
    const alert = $(el, '[role=alert]');
    assertEqual(alert.dataset.code, detail.code, 'the alert shows that error');
    assert(!shadow(el).querySelector('[part~=retry-button]'), 'no pointless retry');
    // The shopper reads what to do; the merchant's page gets the technical detail in the event.
    assert(/damaged or incomplete.*export it again/.test(alert.textContent!), `shopper wording: ${alert.textContent}`);
    assert(!alert.textContent!.includes(detail.message), 'the technical message is not shown to the shopper');
    assert(
      /triangle|byte|header|truncat/i.test(detail.message),
      `sq-error keeps the technical message: ${detail.message}`,
    );
  });

  it('an unknown key: unauthorized with shopper wording, and dropping a file asks again instead of hanging', async () => {
    const errored = nextEvent('sq-error', 10_000);
    const el = await fixture({ key: 'pk_unknown_key_for_this_test' }, { ready: false });
    const first = (await errored).detail;
    assertEqual(first.code, 'unauthorized', 'the 401 reaches the page (it carries CORS headers)');
    assertEqual(first.retryable, false, 'retryable');
    const alert = await until(() => shadow(el).querySelector<HTMLElement>('[role=alert]'), 'the alert');
    assert(
      /cannot give online quotes.*contact the shop/.test(alert.textContent!),
      `shopper wording: ${alert.textContent}`,
    );
    const again = nextEvent('sq-error', 10_000);
    await el.load(cubeStl(10));
    assertEqual((await again).detail.code, 'unauthorized', 'the configuration was asked for again');
    assert(!/Loading the shop/.test(shadow(el).textContent!), 'no endless "Loading the shop\'s options"');
    assertEqual(
      shadow(el).querySelector<HTMLElement>('[role=alert]')?.dataset.code,
      'unauthorized',
      'the reason is still shown',
    );
    assert(!$(el, '[part~=choose-button]').hasAttribute('disabled'), 'the shopper can drop or choose a file again');
  });

  it("a shopper past the shop's quotes an hour reads why, in shopper words, and may try again", async () => {
    // The merchant allows one quote per shopper an hour (the offer's widget_budget).
    await (await fetch('/__sq-offer?quotes_per_shopper_hour=1')).json();
    try {
      const el = await fixture();
      const quoted = nextEvent('sq-quote');
      await el.load(cubeStl(20));
      await quoted;
      const errored = nextEvent('sq-error', 30_000);
      const select = shadow(el).querySelector<HTMLSelectElement>('select#material')!;
      select.value = [...select.options].find((o) => o.value !== select.value)!.value;
      select.dispatchEvent(new Event('change'));
      const { detail } = await errored;
      assertEqual(detail.code, 'shopper_quote_budget_exhausted', 'the budget reached');
      assertEqual(detail.retryable, true, 'retryable');
      const alert = await until(() => shadow(el).querySelector<HTMLElement>('[role=alert]'), 'the alert');
      assertEqual(alert.dataset.code, detail.code, 'the alert shows that error');
      assert(/many prices in a short time/.test(alert.textContent!), `shopper wording: ${alert.textContent}`);
      assert(shadow(el).querySelector('[part~=retry-button]'), 'a retry button');
    } finally {
      await (await fetch('/__sq-offer?reset')).json();
    }
  });

  it('a model larger than the printer: previewed in the "does not fit" state, its upload not kept', async () => {
    const el = await fixture();
    const errored = nextEvent('sq-error', 15_000);
    await el.load(cubeStl(400));
    const { detail } = await errored;
    assertEqual(detail.code, 'does_not_fit', 'code');
    assert($(el, '[part~=dimensions]').classList.contains('misfit'), 'the badge says it does not fit');
    assert(/Does not fit/.test($(el, '[part~=dimensions]').textContent!), 'in words');
    // load() resolves once the whole flow ran: an upload started beside the parse has been stopped or deleted.
    await el.updateComplete;
    assert(!shadow(el).querySelector('progress'), 'no upload or price under way');
  });

  it('a file that is not a model is refused as unsupported_format', async () => {
    const el = await fixture();
    const errored = nextEvent('sq-error', 15_000);
    await el.load(new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])], 'photo.png'));
    assertEqual((await errored).detail.code, 'unsupported_format', 'code');
  });
});

describe('attributes', () => {
  it('locale and currency-display change how the price is written', async () => {
    const el = await fixture({ locale: 'de-DE', 'currency-display': 'code' });
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(10));
    const { detail } = await quoted;
    const amount = $(el, '[part~=amount]').textContent!;
    assert(amount.includes(detail.currency) && amount.includes(','), `German format with the code: ${amount}`);
  });
});
