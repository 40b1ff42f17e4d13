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
  boxStl,
  cleanup,
  countRequests,
  cubeStl,
  fixture,
  nextEvent,
  type SliceQuoteElement,
  shadow,
  truncatedStl,
  until,
} from './helpers.ts';

afterEach(cleanup);

/**
 * How long the rows' slices may be waited for, as a count of polls (helpers.ts: 50 ms apart): a bound for a hang,
 * not a speed. Beside the server suites on two loaded cores, three rows' slices outlasted 2,200 polls.
 */
const SLICE_MS = 900_000;

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
      'minimum_unit_price',
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
      assertEqual(
        $(el, '#add-all-note').textContent!.trim(),
        'Nothing was added to your cart: the cart refused part 2 (lid.stl). Remove it, or try again, to add the others.',
        'the note under the button says nothing was added, and which line the cart refused',
      );
      assertEqual($(el, '#add-all-blockers').textContent!.trim(), '', 'the refused row is not said to be unpriced');
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
    const row = await until(() => rows(el).find((r) => status(r) === 'confirm-size'), 'the row priced, size in doubt');
    const offer = await until(() => row.querySelector<HTMLElement>('[part~=unit-offer]'), 'the unit offer');
    assert(/Looks like inches — scale ×25\.4\?/.test(offer.textContent!), `offer: ${offer.textContent}`);
    const requoted = nextEvent('sq-quote', SLICE_MS);
    (row.querySelector('[part~=unit-offer-button]') as HTMLElement).click();
    const { detail } = await requoted;
    assertEqual(detail.placement.unit, 'in', 'the quote states the unit');
    await until(() => /25\.4 × 25\.4 × 25\.4 mm/.test(row.textContent!), 'the row shows the new size');
    await until(() => status(row) === 'priced', 'priced at a size no longer in doubt');
    assert(!row.querySelector('[part~=unit-offer]'), 'the offer is gone');
  });

  it('the note under Add all names every row that holds it back and why; a size in doubt is not "Priced"', async () => {
    const el = await multiFixture();
    drop(el, [cubeStl(12, 'bracket.stl'), cubeStl(1, 'inch-cube.stl'), truncatedStl()]);
    const [bracket, inch, broken] = await until(
      () => {
        const r = rows(el);
        return r.length === 3 && r.map(status).join() === 'priced,confirm-size,failed' && r;
      },
      'a priced row, a row priced at a size in doubt and a failed row',
      SLICE_MS,
    );
    assert(bracket && inch && broken, 'three rows');
    // The inch row: not a green "Priced" while its size is in doubt, and the single part's choice and note.
    const inchStatus = inch.querySelector<HTMLElement>('[part~=row-status]')!;
    assertEqual(inchStatus.textContent!.trim(), 'Size to confirm', 'its status asks for the answer');
    assert(
      getComputedStyle(inchStatus).color !== getComputedStyle(bracket.querySelector('[part~=row-status]')!).color,
      'not in the colour of a priced row',
    );
    const buttons = [...inch.querySelectorAll('[part~=unit-offer] button')].map((b) =>
      b.textContent!.replace(/\s+/g, ' ').trim(),
    );
    assertEqual(
      buttons.join(' | '),
      'Use inches for part 2: inch-cube.stl | Keep this size for part 2: inch-cube.stl',
      'the unit choice of a single part, naming its row',
    );
    assert(
      /Answer the size question above to add this part/.test(inch.querySelector('[part~=unit-pending]')!.textContent!),
      'the row says why it cannot go to the cart',
    );
    assert(!inch.querySelector('[part~=keep]'), 'nor be saved as a link at a size in doubt');
    const summary = $(el, '[part~=summary-text]').textContent!;
    assertEqual(summary, '1 of 3 parts priced · 1 size to confirm · 1 could not be priced', 'the summary');
    assertEqual(
      $(el, '[part~=summary] [part~=amount]').textContent,
      bracket.querySelector('[part~=row-price] strong')!.textContent,
      "the total is the priced row's line alone",
    );

    const add = $(el, '[part~=add-all-button]');
    const note = () => $(el, '#add-all-blockers').textContent!.replace(/\s+/g, ' ').trim();
    assert(add.hasAttribute('disabled'), 'Add all waits for the answer');
    assertEqual(
      note(),
      'Answer the size question of part 2 (inch-cube.stl) to add your parts to the cart. ' +
        'Part 3 (truncated.stl) could not be priced and is not added: its row says why.',
      'the note names each row and why',
    );
    const qty = bracket.querySelector<HTMLInputElement>('input[type=number]')!;
    qty.value = '0';
    qty.dispatchEvent(new Event('input'));
    await until(() => note().startsWith('Fix the quantity of part 1 (bracket.stl)'), 'the quantity named first');
    assert(note().includes('Answer the size question of part 2 (inch-cube.stl)'), `and the size still: ${note()}`);
    await axe(el);

    qty.value = '1';
    qty.dispatchEvent(new Event('input'));
    (inch.querySelector('[part~=unit-keep-button]') as HTMLElement).click();
    await until(() => status(inch) === 'priced', 'kept at its size: priced');
    await until(() => !add.hasAttribute('disabled'), 'Add all enabled');
    assertEqual(
      note(),
      'Part 3 (truncated.stl) could not be priced and is not added: its row says why.',
      'what is left out',
    );
    assertEqual($(el, '[part~=summary-text]').textContent, '2 of 3 parts priced · 1 could not be priced', 'counted');
  });

  it('a row too big for the printer gets the scale control of a single part; scaled, it is priced', async () => {
    const el = await multiFixture();
    const errored = nextEvent('sq-error', 30_000);
    drop(el, [boxStl(20, 20, 400, 'rod.stl')]);
    assertEqual((await errored).detail.code, 'does_not_fit', 'refused before upload');
    const [row] = await settled(el, 1);
    assert(row, 'a row');
    assertEqual(row.querySelector<HTMLElement>('[role=alert]')!.dataset.code, 'does_not_fit', 'the row says why');
    const control = await until(() => row.querySelector<HTMLFormElement>('[part~=scale-control]'), 'a scale control');
    const input = control.querySelector<HTMLInputElement>('input')!;
    assert(input.id.startsWith('p') && input.id.endsWith('-scale-percent'), `an id of its row: ${input.id}`);
    assertEqual(input.value, '62', 'prefilled with the largest size that fits');
    assertEqual(labelText(el, input), 'Scale the model to (part 1: rod.stl)', 'labelled for its row');
    assertEqual(
      $(el, '#add-all-blockers').textContent!.trim(),
      'Part 1 (rod.stl) could not be priced and is not added: its row says why.',
      'the note names it',
    );
    const priced = nextEvent('sq-quote', SLICE_MS);
    input.value = '25';
    control.querySelector<HTMLButtonElement>('[part~=scale-button]')!.click();
    const { detail } = await priced;
    assertEqual(detail.placement.dimensions.z, 100, 'priced at a quarter of its size, standing');
    await until(() => status(row) === 'priced', 'the row priced');
    assert(/5\.0 × 5\.0 × 100\.0 mm/.test(row.textContent!), 'the row shows the new size');
    assert(!row.querySelector('[part~=scale-control]'), 'the control is gone');
    assert(!$(el, '[part~=add-all-button]').hasAttribute('disabled'), 'and it can be added');
  });

  it('a row that cannot be priced automatically offers Request a quote, as a single part does', async () => {
    const el = await multiFixture();
    // A 0.1 mm sheet is thinner than a layer: the server refuses it without slicing (feature_too_small).
    drop(el, [cubeStl(10, 'block.stl'), boxStl(30, 30, 0.1, 'sheet.stl')]);
    const [block, sheet] = await settled(el, 2);
    assertEqual(status(sheet!), 'failed', 'the sheet has no automatic price');
    assertEqual(sheet!.querySelector<HTMLElement>('[role=alert]')!.dataset.code, 'feature_too_small', 'it says why');
    assert(!block!.querySelector('[part~=request-button]'), 'a priced row is added to the cart, not requested');
    const button = await until(() => sheet!.querySelector<HTMLElement>('[part~=request-button]'), 'Request a quote');
    assertEqual(
      button.textContent!.replace(/\s+/g, ' ').trim(),
      'Request a quote for part 2: sheet.stl',
      'named for its part',
    );
    button.click();
    const name = await until(() => sheet!.querySelector<HTMLInputElement>('input[name=name]'), 'the form in its row');
    await until(() => shadow(el).activeElement === name, 'the focus on its first field');
    assert(name.id.startsWith('p') && name.id.endsWith('-rfq-name'), `an id of its row: ${name.id}`);
    assertEqual(labelText(el, name), 'Your name', 'labelled');
    await axe(el);
    // Sent empty: the problem is named and the focus goes to the field to mend.
    sheet!.querySelector<HTMLButtonElement>('[part~=send-request-button]')!.click();
    await until(() => sheet!.querySelector('[part~=field-error]'), 'the problem named');
    assertEqual(name.getAttribute('aria-invalid'), 'true', 'the field marked');
    name.value = 'Ada Lovelace';
    sheet!.querySelector<HTMLInputElement>('input[name=email]')!.value = 'ada@example.com';
    const requested = nextEvent('sq-quote-request', 30_000);
    sheet!.querySelector<HTMLButtonElement>('[part~=send-request-button]')!.click();
    const { detail } = await requested;
    assertEqual(detail.reason, 'not_priceable', 'why');
    assertEqual(detail.quote_id, null, 'no price to send');
    const sent = await until(() => sheet!.querySelector<HTMLElement>('[part~=request-sent]'), 'the confirmation');
    assert(/ada@example\.com/.test(sent.textContent!), `sent: ${sent.textContent}`);
    await until(() => shadow(el).activeElement === sent, 'the focus on the confirmation');
    assert(!block!.querySelector('[part~=request-sent]'), 'the other row is untouched');
    assert(!$(el, '[part~=add-all-button]').hasAttribute('disabled'), 'the priced row can still be added');
  });

  it('a row above the merchant’s request_quote_above offers Request a quote, as a single part does; Add all leaves it out', async () => {
    // The shop prices lines above 50 itself; set before the widget reads its options.
    await (await fetch('/__sq-offer?request_quote_above_amount=50')).json();
    try {
      const el = await multiFixture();
      drop(el, [cubeStl(12, 'bracket.stl'), cubeStl(16, 'lid.stl')]);
      const [first, second] = await settled(el, 2);
      assert(first && second, 'two rows');
      assert(!shadow(el).querySelector('[part~=request-button]'), 'one of each is sold at once');
      // 60 lids at the minimum price of a part (1.00) or more are over 50: that line is the shop's to price.
      const qty = second.querySelector<HTMLInputElement>('input[type=number]')!;
      qty.value = '60';
      qty.dispatchEvent(new Event('input'));
      const button = await until(() => second.querySelector<HTMLElement>('[part~=request-button]'), 'Request a quote');
      assertEqual(
        button.textContent!.replace(/\s+/g, ' ').trim(),
        'Request a quote for part 2: lid.stl',
        'named for its part',
      );
      assert(/prices parts like this one itself/.test(second.textContent!), 'the row says why');
      assert(second.querySelector('[part~=row-price]'), 'its price still shows');
      assert(!first.querySelector('[part~=request-button]'), 'the other row is sold at once');
      assertEqual(
        $(el, '#add-all-blockers').textContent!.trim(),
        'The shop prices part 2 (lid.stl) itself, so it is not added: request a quote in its row.',
        'the note under the list says which row Add all leaves out',
      );
      assert(
        /1 of 2 parts priced · 1 for the shop to price/.test($(el, '[part~=summary-text]').textContent!),
        'summary',
      );
      await axe(el);
      const added = nextEvent('sq-add-to-cart', 30_000);
      $(el, '[part~=add-all-button]').click();
      const { lines } = (await added).detail;
      assertEqual(lines.length, 1, 'one line');
      assertEqual(lines[0].file_name, 'bracket.stl', 'the part sold at once');
      // The request goes with the row's own price and quantity.
      button.click();
      const name = await until(() => second.querySelector<HTMLInputElement>('input[name=name]'), 'the form in its row');
      name.value = 'Ada Lovelace';
      second.querySelector<HTMLInputElement>('input[name=email]')!.value = 'ada@example.com';
      const requested = nextEvent('sq-quote-request', 30_000);
      second.querySelector<HTMLButtonElement>('[part~=send-request-button]')!.click();
      const { detail } = await requested;
      assertEqual(detail.reason, 'merchant_rule', 'why');
      assert(detail.quote_id, 'with the row’s price');
      await until(() => second.querySelector('[part~=request-sent]'), 'the confirmation');
    } finally {
      await (await fetch('/__sq-offer?reset')).json();
    }
  });

  it('a row compares materials and is saved as a link, which opens in a several-parts widget and orders from there', async () => {
    const el = await multiFixture();
    drop(el, [cubeStl(12, 'bracket.stl'), cubeStl(16, 'lid.stl')]);
    const [first, second] = await settled(el, 2);
    assert(first && second, 'two rows');
    assertEqual(shadow(el).querySelectorAll('[part~=compare-button]').length, 2, 'Compare all materials per row');
    // Compare on the second row: its own list, and picking a material re-prices that row only.
    const compare = second.querySelector<HTMLElement>('[part~=compare-button]')!;
    assertEqual(compare.textContent!.replace(/\s+/g, ' ').trim(), 'Compare all materials for part 2: lid.stl', 'named');
    compare.click();
    const list = await until(
      () => second.querySelector<HTMLElement>('[part~=material-prices][aria-busy=false]'),
      "the row's material prices",
    );
    assertEqual(compare.getAttribute('aria-controls'), list.id, 'the button controls its own list');
    assert(!first.querySelector('[part~=material-prices]'), 'the other row has none open');
    const select = second.querySelector<HTMLSelectElement>('select[id$="-material"]')!;
    const other = [...list.querySelectorAll<HTMLElement>('[part~=material-price]')].find(
      (b) => b.getAttribute('aria-pressed') === 'false',
    )!;
    const material = other.querySelector('.material-name')!.textContent!;
    const firstPrice = first.querySelector('[part~=row-price]')!.textContent;
    const requoted = nextEvent('sq-quote', SLICE_MS);
    other.click();
    assertEqual((await requoted).detail.material, material, 'the row quoted in the material picked');
    assertEqual(select.value, material, 'and its select says so');
    await settled(el, 2);
    assertEqual(first.querySelector('[part~=row-price]')!.textContent, firstPrice, 'the other row kept its price');

    // Save or share on the first row: the link takes the focus, in a field of that row.
    (first.querySelector('[part~=keep-button]') as HTMLElement).click();
    const field = await until(() => first.querySelector<HTMLTextAreaElement>('[part~=kept-link]'), 'the link');
    assert(field.id.endsWith('-kept-link') && field.id !== 'kept-link', `an id of its row: ${field.id}`);
    await until(() => shadow(el).activeElement === field, 'the link focused');
    const token = new URL(field.value).searchParams.get('sq-quote');
    assert(token && /^qt_\w+\./.test(token), `a link to a quote in the shop page's address: ${field.value}`);
    const quoteId = token.split('.')[0]!;

    // The link opens in a several-parts widget (a shop's /parts page) and orders from there, as `lines`.
    const kept = await fixture({ multiple: '', 'quote-link': token }, { ready: false });
    await until(() => shadow(kept).querySelector('[part~=kept-title]'), 'the saved quote shown');
    const added = nextEvent('sq-add-to-cart', 30_000);
    $(kept, '[part~=add-button]').click();
    const { lines } = (await added).detail;
    assertEqual(lines.length, 1, 'one line');
    assertEqual(lines[0].quote_id, quoteId, 'the quote the link keeps');
    assertEqual(lines[0].file_name, 'bracket.stl', "the first row's file");
    assert(typeof lines[0].minimum_unit_price === 'number', 'with the minimum price per part of its cart line');
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
