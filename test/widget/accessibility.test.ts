// Keyboard operation and an axe-core audit of <slice-quote> in its empty, quoted and error states.
import { sendKeys } from '@web/test-runner-commands';
import { $, assert, assertEqual, axe, cleanup, cubeStl, fixture, nextEvent, shadow, truncatedStl } from './helpers.ts';

afterEach(cleanup);

describe('accessibility', () => {
  it('has no axe violations when empty, quoted, and showing an error', async () => {
    const el = await fixture();
    await axe(el);
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(20));
    await quoted;
    await axe(el);
    const errored = nextEvent('sq-error', 15_000);
    await el.load(truncatedStl());
    await errored;
    await axe(el);
  });

  it('every control has a label', async () => {
    const el = await fixture();
    for (const control of shadow(el).querySelectorAll('select, input:not([type=file])')) {
      assert(shadow(el).querySelector(`label[for="${control.id}"]`), `a label for #${control.id}`);
    }
  });

  it('is operable with the keyboard: options re-quote, Enter adds to cart, keys move the 3D view', async () => {
    const el = await fixture();
    const quoted = nextEvent('sq-quote');
    await el.load(cubeStl(20));
    const first = (await quoted).detail;

    // Pick another infill with the arrow key on the focused select.
    const requoted = nextEvent('sq-quote');
    $(el, 'select#infill').focus();
    await sendKeys({ press: 'ArrowDown' });
    const second = (await requoted).detail;
    assert(second.fill_density !== first.fill_density, 'the keyboard changed the infill');

    // Tab from the quantity field past "Compare all materials" to "Add to cart" and press Enter.
    $(el, '#quantity').focus();
    await sendKeys({ press: 'Tab' });
    assertEqual(shadow(el).activeElement, $(el, '[part~=compare-button]'), 'Tab reaches Compare all materials');
    await sendKeys({ press: 'Tab' });
    assertEqual(shadow(el).activeElement, $(el, '[part~=add-button]'), 'Tab reaches Add to cart');
    const added = nextEvent('sq-add-to-cart', 15_000);
    await sendKeys({ press: 'Enter' });
    assertEqual((await added).detail.quote_id, second.quote_id, 'the keyboard added the shown quote');

    // The canvas takes focus and the arrow keys rotate the view.
    const canvas = $(el, 'canvas');
    assertEqual(canvas.getAttribute('tabindex'), '0', 'the 3D view is focusable');
    assert(/3D preview of cube\.stl/.test(canvas.getAttribute('aria-label')!), 'and described');
    canvas.focus();
    const keydown = new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true, composed: true, cancelable: true });
    canvas.dispatchEvent(keydown);
    assert(keydown.defaultPrevented, 'the arrow key is taken by the 3D view');
  });
});
