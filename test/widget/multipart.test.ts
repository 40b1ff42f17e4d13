// <slice-quote multiple> against a real server: several dropped files, a row each (status, size, labelled
// options, price), a broken file that fails with shopper wording and can be removed without focus falling
// to the body, a per-row material change, the limit of parts, one sq-add-to-cart with every priced line from
// one cart call, and a line the cart refuses: its row fails and nothing is added.
import { sendKeys } from '@web/test-runner-commands';
import {
  $,
  assert,
  assertEqual,
  axe,
  cleanup,
  countRequests,
  cubeStl,
  fixture,
  nextEvent,
  shadow,
  truncatedStl,
  until,
  type SliceQuoteElement,
} from './helpers.ts';

afterEach(cleanup);

const SLICE_MS = 110_000;

/** A fresh widget with `multiple`, its options loaded (the drop zone shows the upload limit then). */
async function multiFixture(attrs: Record<string, string> = {}): Promise<SliceQuoteElement> {
  const el = await fixture({ multiple: '', ...attrs }, { ready: false });
  await until(() => el.config && /MB each/.test($(el, '[part~=dropzone]').textContent!), 'the shop options');
  return el;
}

/** Drops `files` on the element as a shopper's drag and drop does. */
function drop(el: HTMLElement, files: File[]): void {
  const data = new DataTransfer();
  for (const f of files) data.items.add(f);
  el.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
}

const rows = (el: HTMLElement) => [...shadow(el).querySelectorAll<HTMLElement>('[part~=row]')];
const status = (row: HTMLElement) => row.dataset.status;

async function settled(el: HTMLElement, count: number): Promise<HTMLElement[]> {
  return until(
    () => {
      const r = rows(el);
      return r.length === count && r.every((row) => ['priced', 'failed'].includes(status(row)!)) && r;
    },
    `${count} rows priced or failed`,
    SLICE_MS,
  );
}

/** The accessible name a label gives its control: the label's text, hidden words included. */
function labelText(el: HTMLElement, control: Element): string {
  return shadow(el).querySelector(`label[for="${control.id}"]`)!.textContent!.replace(/\s+/g, ' ').trim();
}

describe('several parts (multiple)', () => {
  it('rows for dropped files: priced, a broken one failed and removable, one sq-add-to-cart with every line', async () => {
    const el = await multiFixture();
    assert(($(el, '#file') as HTMLInputElement).multiple, 'the file input takes several files');
    assertEqual($(el, '[part~=add-button]').hasAttribute('disabled'), true, 'nothing to add yet');
    await axe(el);
    const errored = nextEvent('sq-error', 30_000);
    drop(el, [cubeStl(12, 'bracket.stl'), truncatedStl(), cubeStl(16, 'lid.stl')]);
    await until(() => rows(el).length === 3, 'a row per file');
    const broken = (await errored).detail;
    assert(/truncat/.test(broken.code), `the broken file fails with its parser code: ${broken.code}`);

    let [first, second, third] = await settled(el, 3);
    assert(first && second && third, 'three rows');
    await axe(el); // priced and failed rows
    assertEqual(status(first), 'priced', 'bracket.stl priced');
    assertEqual(status(second), 'failed', 'truncated.stl failed');
    assertEqual(status(third), 'priced', 'lid.stl priced');
    assert(/12\.0 × 12\.0 × 12\.0 mm/.test(first.textContent!), 'the row shows the size');
    assert(first.querySelector('[part~=thumbnail] img[src^="data:image/png"]'), 'and a thumbnail');
    const alert = second.querySelector<HTMLElement>('[role=alert]')!;
    assertEqual(alert.dataset.code, broken.code, 'the row shows its error');
    assert(/damaged or incomplete/.test(alert.textContent!), `shopper wording: ${alert.textContent}`);
    assert(!alert.textContent!.includes(broken.message), 'not the technical message');
    assert(/could not be priced/.test($(el, '[part~=summary]').textContent!), 'the summary counts the failure');

    // Every control of a row says which part it is for.
    const material = first.querySelector('select[id$="-material"]')!;
    assertEqual(labelText(el, material), 'Material for part 1: bracket.stl', 'labelled per row');
    const quantity = third.querySelector('input[type=number]')!;
    assertEqual(labelText(el, quantity), 'Quantity for part 3: lid.stl', 'labelled per row');
    assert(
      /^Remove part 2: truncated\.stl$/.test(
        second.querySelector('[part~=remove-button]')!.textContent!.replace(/\s+/g, ' ').trim(),
      ),
      'Remove names its part',
    );

    // Remove the broken row by keyboard: focus goes to the row that takes its place, not the body.
    (second.querySelector('[part~=remove-button]') as HTMLElement).focus();
    await sendKeys({ press: 'Enter' });
    await until(() => rows(el).length === 2, 'the row removed');
    [first, third] = rows(el);
    assert(first && third, 'two rows left');
    assert(document.activeElement === el, `focus stays in the widget, not on ${document.activeElement?.tagName}`);
    assertEqual(shadow(el).activeElement, third.querySelector('[part~=remove-button]'), 'focus on the next row');
    assert(/Remove part 2: lid\.stl/.test(shadow(el).activeElement!.textContent!.replace(/\s+/g, ' ')), 'renumbered');

    // A material change on one row re-prices that row only.
    const select = first.querySelector<HTMLSelectElement>('select[id$="-material"]')!;
    const other = [...select.options].find((o) => o.value !== select.value)!.value;
    const before = third.querySelector('[part~=row-price]')!.textContent;
    const requoted = nextEvent('sq-quote', SLICE_MS);
    select.value = other;
    select.dispatchEvent(new Event('change'));
    const { detail: requote } = await requoted;
    assertEqual(requote.material, other, 'the row was quoted in the new material');
    await settled(el, 2);
    assertEqual(third.querySelector('[part~=row-price]')!.textContent, before, 'the other row kept its price');

    // Quantity is checked per row; an invalid one blocks "Add all to cart".
    const qty = third.querySelector<HTMLInputElement>('input[type=number]')!;
    const add = $(el, '[part~=add-all-button]');
    qty.value = '0';
    qty.dispatchEvent(new Event('input'));
    await until(() => add.hasAttribute('disabled'), 'Add all disabled for quantity 0');
    assertEqual(qty.getAttribute('aria-invalid'), 'true', 'the field is marked invalid');
    assert(third.querySelector('[part~=field-error]'), 'with the reason beside it');
    qty.value = '2';
    qty.dispatchEvent(new Event('input'));
    await until(() => !add.hasAttribute('disabled'), 'Add all enabled again');

    const cartCalls = countRequests('/v2/widget/cart');
    const added = nextEvent('sq-add-to-cart', 30_000);
    add.click();
    const event = await added;
    assert(event.bubbles && event.composed, 'the event leaves the shadow root');
    event.detail.accept(); // the page's cart took the lines (after the event: a later accept counts too)
    const { lines } = event.detail;
    assertEqual(lines.length, 2, 'one event with both priced lines');
    await until(() => cartCalls.count() > 0, 'the cart call seen');
    assertEqual(cartCalls.count(), 1, 'both lines in one cart call');
    cartCalls.stop();
    const keys = [
      'quote_id',
      'file_id',
      'file_name',
      'material',
      'color',
      'quality',
      'quality_label',
      'layer_height',
      'fill_density',
      'quantity',
      'unit_price',
      'subtotal',
      'minimum_line_adjustment',
      'total_price',
      'currency',
      'estimated_time',
      'estimated_time_seconds',
      'filament_weight',
      'placement',
      'summary',
      'expires_at',
      'signature',
      'thumbnail',
    ];
    for (const line of lines) for (const k of keys) assert(k in line, `line ${line.file_name} has ${k}`);
    assertEqual(lines[0].file_name, 'bracket.stl', 'first line');
    assertEqual(lines[0].material, other, 'with its material');
    assertEqual(lines[1].file_name, 'lid.stl', 'second line');
    assertEqual(lines[1].quantity, 2, 'with its quantity');
    assert(lines[0].quote_id !== lines[1].quote_id && lines[0].file_id !== lines[1].file_id, 'two parts');
    for (const line of lines)
      assert(
        line.signature.payload.startsWith(`v3:${line.quote_id}:${line.file_id}:`) &&
          /^[0-9a-f]{64}$/.test(line.signature.hmac_sha256),
        'each line carries its signed quote',
      );
    assert(/^data:image\/png;base64,/.test(lines[0].thumbnail), 'a thumbnail per line');
    await until(
      () => /Added 2 parts/.test(shadow(el).querySelector('[part~=added]')?.textContent ?? ''),
      'confirmation',
    );
    await axe(el);
  });

  it('a line the cart refuses fails its row with shopper wording and nothing is added; without it the rest is', async () => {
    const el = await multiFixture();
    drop(el, [cubeStl(12, 'bracket.stl'), cubeStl(16, 'lid.stl')]);
    const [first, second] = await settled(el, 2);
    assert(first && second, 'two rows');
    assertEqual(status(second), 'priced', 'both priced');
    const qty = second.querySelector<HTMLInputElement>('input[type=number]')!;
    qty.value = '3';
    qty.dispatchEvent(new Event('input'));
    let addedEvents = 0;
    const onAdded = () => addedEvents++;
    document.addEventListener('sq-add-to-cart', onAdded);
    const cartCalls = countRequests('/v2/widget/cart');
    // The merchant lowers the most pieces per line to 2 while the page is open: the server refuses line 1.
    await (await fetch('/__sq-offer?quantity_max=2')).json();
    try {
      const errored = nextEvent('sq-error', 30_000);
      $(el, '[part~=add-all-button]').click();
      assertEqual((await errored).detail.code, 'validation_failed', 'the refusal is reported to the page');
      await until(() => status(second) === 'failed', 'the refused row failed');
      const alert = second.querySelector<HTMLElement>('[role=alert]')!;
      assertEqual(alert.dataset.code, 'validation_failed', 'the row shows its error');
      assert(/shop has changed its options/.test(alert.textContent!), `shopper wording: ${alert.textContent}`);
      assertEqual(status(first), 'priced', 'the other row is not failed');
      assert(!first.querySelector('[part~=row-added]'), 'and not in the cart');
      assert(!shadow(el).querySelector('[part~=added]'), 'no confirmation');
      assert(/Nothing was added/.test($(el, '#add-all-note').textContent!), 'the note says nothing was added');
      await until(() => cartCalls.count() > 0, 'the cart call seen');
      assertEqual(cartCalls.count(), 1, 'one cart call for both lines');
      assertEqual(addedEvents, 0, 'no sq-add-to-cart');
      await axe(el);
    } finally {
      await (await fetch('/__sq-offer?reset')).json();
    }
    // Without the refused part, the rest goes in.
    (second.querySelector('[part~=remove-button]') as HTMLElement).click();
    await until(() => rows(el).length === 1, 'the row removed');
    const added = nextEvent('sq-add-to-cart', 30_000);
    $(el, '[part~=add-all-button]').click();
    const { lines } = (await added).detail;
    assertEqual(lines.length, 1, 'one line');
    assertEqual(lines[0].file_name, 'bracket.stl', 'the part left');
    await until(() => cartCalls.count() > 1, 'the second cart call seen');
    assertEqual(cartCalls.count(), 2, 'one more cart call');
    assertEqual(addedEvents, 1, 'one sq-add-to-cart');
    document.removeEventListener('sq-add-to-cart', onAdded);
    cartCalls.stop();
  });

  it('a line whose price expired fails its row; Try again prices it afresh, then both lines go in one call', async () => {
    const el = await multiFixture();
    const quoted: string[] = [];
    const onQuote = (e: Event) => quoted.push((e as CustomEvent).detail.quote_id);
    document.addEventListener('sq-quote', onQuote);
    let addedEvents = 0;
    const onAdded = () => addedEvents++;
    document.addEventListener('sq-add-to-cart', onAdded);
    const cartCalls = countRequests('/v2/widget/cart');
    try {
      drop(el, [cubeStl(12, 'bracket.stl'), cubeStl(16, 'lid.stl')]);
      await settled(el, 2);
      assertEqual(quoted.length, 2, 'a quote per row');
      const stale = quoted[0]!;
      assertEqual((await (await fetch(`/__sq-expire?quote_id=${stale}`)).json()).expired, 1, 'the quote expired');

      const errored = nextEvent('sq-error', 30_000);
      $(el, '[part~=add-all-button]').click();
      assertEqual((await errored).detail.code, 'quote_expired', 'the refusal is reported to the page');
      const failed = await until(() => rows(el).find((r) => status(r) === 'failed'), 'the refused row failed');
      const other = rows(el).find((r) => r !== failed)!;
      assertEqual(status(other), 'priced', 'the other row is not failed');
      assert(!shadow(el).querySelector('[part~=row-added]'), 'no row is in the cart');
      assert(/Nothing was added/.test($(el, '#add-all-note').textContent!), 'the note says nothing was added');
      const alert = failed.querySelector<HTMLElement>('[role=alert]')!;
      assertEqual(alert.dataset.code, 'quote_expired', 'the row shows its error');
      assert(/price has expired/.test(alert.textContent!), `shopper wording: ${alert.textContent}`);
      await until(() => cartCalls.count() > 0, 'the cart call seen');
      assertEqual(cartCalls.count(), 1, 'one cart call');
      assertEqual(addedEvents, 0, 'no sq-add-to-cart');
      await axe(el);

      const requoted = nextEvent('sq-quote', SLICE_MS);
      (failed.querySelector('[part~=retry-button]') as HTMLElement).click();
      assert((await requoted).detail.quote_id !== stale, 'a fresh quote');
      await settled(el, 2);
      assert(
        rows(el).every((r) => status(r) === 'priced'),
        'both rows priced',
      );
      const added = nextEvent('sq-add-to-cart', 30_000);
      $(el, '[part~=add-all-button]').click();
      const { lines } = (await added).detail;
      assertEqual(lines.length, 2, 'both lines');
      assert(
        lines.every((l: { quote_id: string }) => l.quote_id !== stale),
        'none with the expired quote',
      );
      await until(() => cartCalls.count() > 1, 'the second cart call seen');
      assertEqual(cartCalls.count(), 2, 'one more cart call');
      assertEqual(addedEvents, 1, 'one sq-add-to-cart');
    } finally {
      document.removeEventListener('sq-quote', onQuote);
      document.removeEventListener('sq-add-to-cart', onAdded);
      cartCalls.stop();
    }
  });

  it('max-parts bounds the list with a message naming the files left out; within the hard cap of 25', async () => {
    const el = await multiFixture({ 'max-parts': '2' });
    drop(el, [cubeStl(10, 'a.stl'), cubeStl(10, 'b.stl'), cubeStl(10, 'c.stl')]);
    await until(() => rows(el).length === 2 && shadow(el).querySelector('[part~=limit]'), 'two rows and a notice');
    const notice = $(el, '[part~=limit]');
    assertEqual(notice.getAttribute('role'), 'alert', 'announced');
    assert(/up to 2 parts.*c\.stl/s.test(notice.textContent!), `names what was left out: ${notice.textContent}`);
    el.setAttribute('max-parts', '500');
    await until(() => /up to 25 parts/.test($(el, '[part~=dropzone]').textContent!), 'the hard cap');
    el.setAttribute('max-parts', 'many');
    await until(() => /up to 10 parts/.test($(el, '[part~=dropzone]').textContent!), 'the default for nonsense');
  });

  it('a row drawn in inches offers the unit fix; accepting re-prices that row at 25.4 mm', async () => {
    const el = await multiFixture();
    drop(el, [cubeStl(1, 'inch-cube.stl')]);
    const [row] = await settled(el, 1);
    assert(row, 'a row');
    const offer = await until(() => row.querySelector<HTMLElement>('[part~=unit-offer]'), 'the unit offer');
    assert(/Looks like inches — scale ×25\.4\?/.test(offer.textContent!), `offer: ${offer.textContent}`);
    const requoted = nextEvent('sq-quote', SLICE_MS);
    (row.querySelector('[part~=unit-offer-button]') as HTMLElement).click();
    const { detail } = await requoted;
    assertEqual(detail.placement.unit, 'in', 'the quote states the unit');
    await until(() => /25\.4 × 25\.4 × 25\.4 mm/.test(row.textContent!), 'the row shows the new size');
    assert(!row.querySelector('[part~=unit-offer]'), 'the offer is gone');
  });

  it('an unknown key: the reason is shown, a drop asks for the configuration again and adds no row', async () => {
    const errored = nextEvent('sq-error', 10_000);
    const el = await fixture({ multiple: '', key: 'pk_unknown_key_for_this_test' }, { ready: false });
    assertEqual((await errored).detail.code, 'unauthorized', 'the 401 reaches the page');
    const again = nextEvent('sq-error', 10_000);
    drop(el, [cubeStl(10)]);
    assertEqual((await again).detail.code, 'unauthorized', 'asked again');
    const alert = await until(() => shadow(el).querySelector<HTMLElement>('[role=alert]'), 'the alert');
    assert(/cannot give online quotes/.test(alert.textContent!), `shopper wording: ${alert.textContent}`);
    assert(!/Loading the shop/.test(shadow(el).textContent!), 'no endless loading');
    assertEqual(rows(el).length, 0, 'no row without the shop options');
    assert(!$(el, '[part~=choose-button]').hasAttribute('disabled'), 'the shopper can try again');
  });

  it('the single-part embed is unchanged without the attribute', async () => {
    const el = await fixture();
    assert(!($(el, '#file') as HTMLInputElement).multiple, 'one file');
    assert(!shadow(el).querySelector('[part~=add-all-button]'), 'no Add all');
    assert(shadow(el).querySelector('select#material'), 'the single options keep their ids');
  });
});
