// Price breakdown and print statistics of a completed quote (quote page and the profiles' "try it").
import { html, nothing, type TemplateResult } from 'lit';
import { duration, money, num } from '../lib/format.ts';
import type { Quote } from '../lib/types.ts';

export function priceBreakdownView(q: Quote): TemplateResult {
  const b = q.price_breakdown;
  // The dashboard is the merchant's: its quotes always carry the whole breakdown (a shopper's may not).
  if (!b || !('machine' in b)) return html`<p class="muted">No price breakdown recorded.</p>`;
  const row = (label: string, v: number, hint = '') =>
    html`<tr><th scope="row">${label}${hint ? html` <span class="muted small">${hint}</span>` : nothing}</th><td class="num">${money(v, b.currency)}</td></tr>`;
  const rate = b.exchange_rate;
  const converted = rate
    ? html` <span class="muted small">converted from ${rate.from} at 1 ${rate.from} = ${rate.rate} ${rate.to}</span>`
    : nothing;
  const minimum = b.minimum_price_adjustment
    ? row('Minimum price adjustment', b.minimum_price_adjustment, 'up to your minimum price')
    : nothing;
  return html`<table class="table table-compact breakdown">
    <caption>Price breakdown${converted}</caption>
    <tbody>
      ${row('Material', b.material, `at ${money(b.price_per_gram * 1000, b.currency)}/kg`)}
      ${row('Support material', b.support)}
      ${row('Machine time', b.machine)}
      ${row('Energy', b.energy)}
      ${row('Fixed fee', b.fixed_fee)}
      ${minimum}
      ${row('Subtotal', b.subtotal)}
      ${row('Tax', b.tax)}
    </tbody>
    <tfoot><tr><th scope="row">Total</th><td class="num"><strong>${money(b.total, b.currency)}</strong></td></tr></tfoot>
  </table>`;
}

export function printStatsView(q: Quote): TemplateResult {
  const s = q.print_stats;
  if (!s) return html`<p class="muted">No print statistics recorded.</p>`;
  const item = (label: string, value: string) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`;
  return html`<dl class="stats">
    ${item('Print time', duration(s.print_time_s))}
    ${item('Filament', `${num(s.filament_weight_g)} g · ${num(s.filament_length_mm / 1000)} m · ${num(s.filament_volume_cm3)} cm³`)}
    ${item('Support', `${num(s.support_weight_g)} g (${num(s.support_share * 100, 1)} %)`)}
    ${item('Layers', num(s.layers, 0))}
    ${s.max_z_mm !== undefined ? item('Height', `${num(s.max_z_mm)} mm`) : nothing}
    ${q.printInfo ? item('Material', `${q.printInfo.technology} · ${q.printInfo.material} · ${q.printInfo.color}`) : nothing}
    ${q.infill_pattern ? item('Infill pattern', q.infill_pattern.exact ? q.infill_pattern.used : `${q.infill_pattern.requested} → sliced as ${q.infill_pattern.used}`) : nothing}
    ${item('Slice', q.cached ? 'Reused an identical earlier slice' : q.slicer ? `${q.slicer.name} ${q.slicer.version}` : 'Sliced')}
  </dl>`;
}

/** The headline numbers: price, time, weight. */
export function quoteHeadline(q: Quote): TemplateResult {
  return html`<div class="headline">
    <div><span class="muted small">Total</span><strong class="big" data-testid="quote-total">${money(q.total_price, q.currency)}</strong></div>
    <div><span class="muted small">Print time</span><strong class="big">${duration(q.estimated_time_seconds)}</strong></div>
    <div><span class="muted small">Filament</span><strong class="big">${q.filament_weight !== undefined ? `${num(q.filament_weight)} g` : '—'}</strong></div>
  </div>`;
}
