// The instant estimate's range is shown only while it helps a shopper choose: at most ±15 % around the estimate.
// A wider one is left out ("≈ $2.10 each · Estimate · exact price in ~4 s"); the estimate stays marked either way.
import { render } from 'lit';
import type { Estimate, Pricing } from '../../widget/src/types.ts';
import { renderEstimate } from '../../widget/src/view.ts';
import { assert, assertEqual } from './helpers.ts';

function shown(total: number, range: [number, number]): HTMLElement {
  const estimate = { total_price: total, price_range: range, currency: 'USD' } as unknown as Estimate;
  const timeLeft = { seconds: 4, at: 1000, basis: null, ahead: null, raised: null };
  const pricing: Pricing = { percent: 10, estimate, step: 'slicing', reading: null, timeLeft, now: 1000 };
  const host = document.createElement('div');
  render(renderEstimate(pricing, { locale: 'en-US', currencyDisplay: 'symbol' }), host);
  return host;
}

const rangeText = (host: HTMLElement) =>
  host.querySelector('[part~=estimate-range]')!.textContent!.replace(/\s+/g, ' ').trim();

describe('estimate range', () => {
  it('a range within ±15 % is shown with the estimate', () => {
    const host = shown(2, [1.8, 2.2]);
    assertEqual(rangeText(host), 'Estimate $1.80–$2.20 · exact price in ~4 s', 'the narrow range is shown');
    assert(host.querySelector('[data-estimate]') !== null, 'marked as an estimate');
  });

  it('a range wider than ±15 % is left out; the estimate stays, marked', () => {
    const host = shown(2, [1.4, 2.8]);
    assertEqual(rangeText(host), 'Estimate · exact price in ~4 s', 'the wide range is left out');
    assert(/≈/.test(host.querySelector('[part~=estimate-amount]')!.textContent!), 'still marked ≈');
    assert(host.querySelector('[data-estimate]') !== null, 'marked as an estimate');
  });
});
