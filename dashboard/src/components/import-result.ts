// What an import of the shop's printer made (POST /v2/profiles/import): the profiles, the print presets as
// qualities, whether its custom G-code was kept (and which blocks) or left out, and every setting left out.
import { html, nothing, type TemplateResult } from 'lit';
import { blockName, gcodeBlocks } from '../lib/custom-gcode.ts';
import type { ProfileImportResult } from '../lib/types.ts';
import './preset-qualities.ts';

/** "Start G-code, End G-code and Before layer change G-code" */
function blockList(keys: string[]): string {
  const names = keys.map(blockName);
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** The import's custom G-code in words: kept (with its blocks), none to keep, or left out and how to keep it. */
function customGcode(result: ProfileImportResult, keepAsked: boolean): TemplateResult | typeof nothing {
  const kept = result.kept_custom_gcode;
  if (kept.length)
    return html`<p data-testid="gcode-kept">Kept your custom G-code: ${blockList(kept)}. Quotes count the time it
      adds, as your printer does.</p>`;
  if (keepAsked) return html`<p data-testid="gcode-kept">Your config has no custom G-code to keep.</p>`;
  const left = gcodeBlocks(result.ignored);
  if (!left.length) return nothing;
  return html`<p data-testid="gcode-kept">Custom G-code left out: ${blockList(left)}. Quotes use this service's
    minimal start and end; tick “Keep my custom G-code” and import again to count yours.</p>`;
}

export function importResult(result: ProfileImportResult, keepAsked: boolean): TemplateResult {
  const left = [...result.refused, ...result.ignored];
  return html`<div role="status" data-testid="printer-imported">
    <p>Imported: ${result.profiles.map((p) => p.name).join(', ')}. Your default printer is now
      ${result.profiles.find((p) => p.kind === 'printer')?.name ?? 'unchanged'}.</p>
    ${customGcode(result, keepAsked)}
    <sq-preset-qualities .imported=${result}></sq-preset-qualities>
    ${
      left.length
        ? html`<details><summary>${left.length} settings left out</summary>
            <ul class="plain-list small">${left.map((n) => html`<li><code>${n.key}</code>: ${n.reason}</li>`)}</ul>
          </details>`
        : nothing
    }
  </div>`;
}
