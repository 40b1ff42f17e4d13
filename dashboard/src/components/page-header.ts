// The heading block of every page: the h1 the shell focuses, a one-line purpose, and the API it uses.
import { html, nothing, type TemplateResult } from 'lit';

export function pageHeader(title: string, lead: string | TemplateResult, actions?: TemplateResult): TemplateResult {
  return html`<header class="page-header">
    <div>
      <h1 tabindex="-1">${title}</h1>
      <p class="lead">${lead}</p>
    </div>
    ${actions ? html`<div class="page-actions">${actions}</div>` : nothing}
  </header>`;
}

/** A status badge: the word carries the meaning, colour only repeats it. */
export function badge(text: string, tone: 'ok' | 'bad' | 'warn' | 'info' | 'neutral' = 'neutral'): TemplateResult {
  return html`<span class="badge badge-${tone}">${text}</span>`;
}

/** A labelled meter (quota bars): role=meter is not universally supported, so a progressbar with text. */
export function meter(label: string, used: number, limit: number, text: string): TemplateResult {
  const pct = limit > 0 ? Math.min(100, (used / limit) * 100) : 0;
  const tone = pct >= 100 ? 'bad' : pct >= 80 ? 'warn' : 'ok';
  return html`<div class="meter-wrap">
    <div class="meter-label"><span>${label}</span><span>${text}</span></div>
    <div class="meter meter-${tone}" role="progressbar" aria-label=${label} aria-valuemin="0" aria-valuemax="100"
      aria-valuenow=${Math.round(pct)} aria-valuetext=${text}><div class="meter-fill" style="width: ${pct}%"></div></div>
  </div>`;
}
