// The first-run checklist on the Overview (GET /v2/setup): each step of setting up a shop, ticked from what the
// shop has done, and linked to the page where it is done. An order no cart took shows the cart as not connected.
import { html, type TemplateResult } from 'lit';
import { money, num } from '../lib/format.ts';
import type { Setup } from '../lib/types.ts';
import { badge } from './page-header.ts';

interface Step {
  id: string;
  title: string;
  done: boolean;
  /** What to do, or what was done. */
  detail: TemplateResult | string;
  /** Where it is done. */
  href: string;
  warn?: string;
}

const minimum = (s: Setup['prices']) =>
  s.minimum_price === null
    ? 'the minimum price of your global profile'
    : `at least ${money(s.minimum_price, s.currency)} a part`;

/** "PETG and ABS" */
const names = (list: string[]) =>
  list.length < 2 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;

/** Whose prices shoppers pay: the shop's own for every material it offers, or which still sell at the examples. */
function pricesDetail(p: Setup['prices']): string {
  if (p.done)
    return `Your own prices for ${p.materials === 1 ? 'your material' : `all ${p.materials} materials`}, in ${p.currency}, ${minimum(p)}.`;
  if (!p.materials) return 'Your offer has no material yet: choose the materials shoppers may pick.';
  const examples = p.example_priced_materials;
  return `${names(examples)} ${examples.length === 1 ? 'sells' : 'sell'} at the shipped example prices in ${p.currency}, ${minimum(p)}: add your price for ${examples.length === 1 ? 'it' : 'each'} (and your currency in a global profile).`;
}

function steps(s: Setup): Step[] {
  return [
    {
      id: 'widget_key',
      title: 'Create a widget key',
      done: s.widget_key.done,
      detail: "A publishable key with your shop's address, for the widget snippet.",
      href: '#/widget-keys',
    },
    {
      id: 'offer',
      title: 'Choose your offer',
      done: s.offer.done,
      detail: 'The materials, colours, qualities, infill and quantities shoppers may pick.',
      href: '#/offer',
    },
    {
      id: 'prices',
      title: 'Set your prices, currency and minimum',
      done: s.prices.done,
      detail: pricesDetail(s.prices),
      href: '#/prices',
    },
    {
      id: 'cart',
      title: 'Connect your cart',
      done: s.cart.done,
      detail: s.cart.done
        ? 'Your shop page takes the parts shoppers add.'
        : html`Listen for <code>sq-add-to-cart</code> on your shop page and call <code>accept()</code>: the snippet on Widget keys shows how.`,
      href: '#/widget-keys',
      warn: s.cart.not_connected ? 'Cart not connected' : undefined,
    },
    {
      id: 'test_order',
      title: 'Place a test order',
      done: s.test_order.done,
      detail: s.test_order.done
        ? `${num(s.test_order.orders, 0)} ${s.test_order.orders === 1 ? 'order' : 'orders'} so far.`
        : 'Add a part to the cart from your shop page; it appears on Orders.',
      href: '#/orders',
    },
  ];
}

function stepBadge(step: Step) {
  if (step.done) return badge('Done', 'ok');
  return step.warn ? badge(step.warn, 'warn') : badge('To do', 'neutral');
}

export function setupChecklist(s: Setup): TemplateResult {
  const all = steps(s);
  const done = all.filter((step) => step.done).length;
  if (s.complete)
    return html`<p class="alert alert-info" data-testid="setup-complete">Your shop is set up: all ${all.length} steps are done.</p>`;
  return html`<section class="panel" aria-labelledby="setup-h" data-testid="setup-checklist">
    <div class="panel-head"><h2 id="setup-h">Set up your shop</h2><span class="muted">${done} of ${all.length} done</span></div>
    <ol class="checklist">
      ${all.map(
        (step) => html`<li class=${step.done ? 'done' : ''} data-step=${step.id}>
          <div class="checklist-head">${stepBadge(step)} <a href=${step.href}><strong>${step.title}</strong></a></div>
          <p class="muted small">${step.detail}</p>
        </li>`,
      )}
    </ol>
  </section>`;
}
