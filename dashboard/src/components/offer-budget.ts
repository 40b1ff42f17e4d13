// The widget budget section of the offer editor: what the widget's shoppers may spend (docs/limits.md,
// "Widget budgets").
import { html, type TemplateResult } from 'lit';
import type { OfferDraft } from '../lib/offer-draft.ts';
import { type EditorContext, textField } from './offer-controls.ts';

type BudgetField = keyof OfferDraft['budget'];

export function budgetSection(c: EditorContext): TemplateResult {
  const b = c.draft.budget;
  const field = (name: BudgetField, label: string | TemplateResult, hint: string) =>
    textField(c, `widget_budget.${name}`, {
      label,
      value: b[name],
      inputmode: name === 'upload_storage_bytes' ? 'decimal' : 'numeric',
      hint,
      onInput: (v) => c.edit((x) => (x.budget[name] = v)),
    });
  return html`<fieldset class="field-group offer-group" aria-describedby="of-budget-hint">
    <legend>Widget budget</legend>
    <p class="hint" id="of-budget-hint">What the shoppers of this widget key may spend. The widget key is public, so
      these limits are what keeps a stranger from using up your month.</p>
    <div class="field-pair">
      ${field('quotes_per_shopper_hour', 'Quotes per shopper per hour', 'Each option a shopper tries is a quote.')}
      ${field('quotes_per_day', 'Quotes per day, all shoppers', 'Counted per UTC day.')}
    </div>
    <div class="field-pair">
      ${field(
        'monthly_quote_share_percent',
        html`Share of the monthly quotes <span class="unit">(%)</span>`,
        'The rest of your plan’s monthly quotes stays for your own API calls.',
      )}
      ${field(
        'upload_storage_bytes',
        html`Storage for shopper uploads <span class="unit">(MiB)</span>`,
        'Models shoppers upload through this key, counted against your storage too.',
      )}
    </div>
  </fieldset>`;
}
