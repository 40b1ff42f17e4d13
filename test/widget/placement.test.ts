// Units and orientation in <slice-quote>: a model drawn in inches (exported without a unit) is offered
// "Looks like inches — scale ×25.4?", and accepting rescales the upload on the server and re-prices it;
// a rod too tall to stand is uploaded and priced lying down, not refused.
import { $, assert, assertEqual, boxStl, cleanup, cubeStl, fixture, nextEvent, shadow, until } from './helpers.ts';

afterEach(cleanup);

describe('unit offer', () => {
  it('a 1-unit cube is offered inches; accepting prices a 25.4 mm cube', async () => {
    const el = await fixture();
    const firstQuote = nextEvent('sq-quote');
    await el.load(cubeStl(1, 'inch-cube.stl'));
    const speck = (await firstQuote).detail;
    const offer = await until(() => shadow(el).querySelector<HTMLElement>('[part~=unit-offer]'), 'the unit offer');
    assert(/Looks like inches — scale ×25\.4\?/.test(offer.textContent!), `offer text: ${offer.textContent}`);
    assertEqual($(el, '[part~=unit-offer-button]').textContent!.trim(), 'Use inches', 'the button says what it does');
    const requoted = nextEvent('sq-quote');
    $(el, '[part~=unit-offer-button]').click();
    const { detail } = await requoted;
    assert(detail.quote_id !== speck.quote_id, 'a new quote');
    assert(
      detail.filament_weight > speck.filament_weight * 100,
      `a real part now: ${detail.filament_weight} g vs ${speck.filament_weight} g`,
    );
    const placement = (el.quote as unknown as { placement: { unit: string; dimensions: { x: number } } }).placement;
    assertEqual(placement.unit, 'in', 'the quote states the unit');
    assertEqual(placement.dimensions.x, 25.4, 'and the size');
    assert(/25\.4 × 25\.4 × 25\.4 mm/.test($(el, '[part~=dimensions]').textContent!), 'the preview shows the new size');
    assert(!shadow(el).querySelector('[part~=unit-offer]'), 'the offer is gone');
  });

  it('while the size question is open nothing goes to the cart; "Keep this size" answers it', async () => {
    const el = await fixture();
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(1, 'speck.stl'));
    const speck = (await quoted).detail;
    await until(() => shadow(el).querySelector('[part~=unit-offer]'), 'the unit offer');
    const add = $(el, '[part~=add-button]');
    assert(add.hasAttribute('disabled'), 'priced, but Add to cart waits for the answer');
    assert(/Answer the size question/.test($(el, '[part~=unit-pending]').textContent!), 'and says why');
    let added = 0;
    const count = () => added++;
    el.addEventListener('sq-add-to-cart', count);
    add.click();
    assertEqual(added, 0, 'a click adds nothing');
    assert(speck.unit_price >= 1, `the shop's minimum per part applies, never $0: ${speck.unit_price}`);

    const adding = nextEvent('sq-add-to-cart');
    $(el, '[part~=unit-keep-button]').click();
    await until(() => !shadow(el).querySelector('[part~=unit-offer]'), 'the question answered');
    assert(!shadow(el).querySelector('[part~=unit-pending]'), 'no hint any more');
    $(el, '[part~=add-button]').click();
    const { detail } = await adding;
    assertEqual(detail.quote_id, speck.quote_id, 'the part is sold at the size the shopper kept');
    el.removeEventListener('sq-add-to-cart', count);
  });

  it('a model of ordinary size gets no offer', async () => {
    const el = await fixture();
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(20));
    await quoted;
    assert(!shadow(el).querySelector('[part~=unit-offer]'), 'no offer for a 20 mm cube');
  });
});

describe('orientation', () => {
  it('a rod too tall to stand on the printer is uploaded and priced lying down', async () => {
    const el = await fixture();
    const quoted = nextEvent('sq-quote', 115_000);
    await el.load(boxStl(20, 20, 230, 'rod.stl'));
    const { detail } = await quoted;
    assert(detail.filament_weight > 10, `a 230 mm rod weighs more than a speck: ${detail.filament_weight} g`);
    const placement = (el.quote as unknown as { placement: { orientation: string; dimensions: { z: number } } })
      .placement;
    assertEqual(placement.orientation, 'laid_down', 'the quote says how it is printed');
    assertEqual(placement.dimensions.z, 20, 'lying on a side');
    assert(!$(el, '[part~=dimensions]').classList.contains('misfit'), 'not shown as a misfit');
  });
});
