// The settings a quote was sliced and priced with, and where each value came from (setting_sources:
// request, the merchant's offer, the merchant's profile, a global profile, or the built-in default).
import { html, type TemplateResult } from 'lit';
import { SECTIONS, type SettingSection, settingsOf } from '../../../shared/settings.ts';
import type { Profile, Quote } from '../lib/types.ts';
import { badge } from './page-header.ts';

const SECTION_TITLE: Record<SettingSection, string> = {
  printer_config: 'Printer (printer_config)',
  material_config: 'Material (material_config)',
  quote_config: 'Pricing (quote_config)',
};

export function sourceLabel(source: string | undefined, profiles: Map<string, Profile>): TemplateResult {
  if (!source) return badge('Not set');
  if (source === 'request') return badge('Request', 'info');
  if (source === 'built-in') return badge('Built-in default');
  // The merchant's offer: a quality preset or material the shopper chose in the widget.
  if (source === 'offer') return badge('Your offer', 'ok');
  const [scope, id = ''] = source.split(':', 2);
  const name = profiles.get(id)?.name ?? id;
  return scope === 'profile' ? badge(`Your profile “${name}”`, 'ok') : badge(`Global profile “${name}”`);
}

function valueText(v: unknown, unit: string | undefined): string {
  if (v === undefined) return '—';
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (typeof v === 'object' && v !== null)
    return (
      Object.entries(v)
        .map(([k, x]) => `${k} ${x}`)
        .join(', ') || 'none'
    );
  return unit && unit !== 'count' ? `${v} ${unit}` : String(v);
}

function sectionTable(quote: Quote, section: SettingSection, profiles: Map<string, Profile>): TemplateResult {
  const values = quote.settings?.[section] ?? {};
  const sources = quote.setting_sources ?? {};
  return html`<div class="table-wrap"><table class="table table-compact">
    <caption>${SECTION_TITLE[section]}</caption>
    <thead><tr><th scope="col">Setting</th><th scope="col">Value</th><th scope="col">Came from</th></tr></thead>
    <tbody>${settingsOf(section).map(
      (d) => html`<tr data-setting="${section}.${d.name}">
        <th scope="row">${d.label} <code class="muted small">${d.name}</code></th>
        <td>${valueText(values[d.name], d.unit)}</td>
        <td>${sourceLabel(sources[`${section}.${d.name}`], profiles)}</td>
      </tr>`,
    )}</tbody>
  </table></div>`;
}

export function resolvedSettingsView(quote: Quote, profiles: Map<string, Profile>): TemplateResult {
  if (!quote.settings) return html`<p class="muted">This quote recorded no resolved settings.</p>`;
  return html`<div class="resolved">${SECTIONS.map((s) => sectionTable(quote, s, profiles))}</div>`;
}
