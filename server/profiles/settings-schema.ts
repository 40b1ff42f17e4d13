// JSON Schemas of printer_config, material_config and quote_config, generated from the settings
// catalogue in shared/settings.ts, so the document and the validator share one definition.

import { CURRENCY_CODES } from '../../shared/money.ts';
import { type SettingDef, type SettingSection, settingsOf } from '../../shared/settings.ts';

function fieldSchema(d: SettingDef): Record<string, unknown> {
  const base: Record<string, unknown> = { description: `${d.label}${d.unit ? ` (${d.unit})` : ''}. ${d.description}` };
  switch (d.type) {
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'enum':
      return { ...base, type: 'string', enum: [...(d.values ?? [])] };
    case 'string':
      if (d.values) return { ...base, type: 'string', enum: [...d.values] };
      return { ...base, type: 'string', minLength: 1, ...(d.maxLength ? { maxLength: d.maxLength } : {}) };
    case 'rates':
      return {
        ...base,
        type: 'object',
        propertyNames: { enum: [...CURRENCY_CODES] },
        additionalProperties: { type: 'number', ...numberRange(d) },
        examples: [{ EUR: 0.92, GBP: 0.79 }],
      };
    default:
      return { ...base, type: d.type === 'integer' ? 'integer' : 'number', ...numberRange(d) };
  }
}

function numberRange(d: SettingDef) {
  return {
    ...(d.min !== undefined ? (d.exclusiveMin ? { exclusiveMinimum: d.min } : { minimum: d.min }) : {}),
    ...(d.max !== undefined ? { maximum: d.max } : {}),
  };
}

/** The schema of one catalogue setting, e.g. for a profile-only field documented beside its profile. */
export function settingSchema(section: SettingSection, name: string): Record<string, unknown> {
  return fieldSchema(settingsOf(section).find((d) => d.name === name)!);
}

export function sectionSchema(section: SettingSection, opts: { profile?: boolean } = {}) {
  const defs = settingsOf(section).filter((d) => d.requestField || opts.profile);
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(defs.map((d) => [d.name, fieldSchema(d)])),
  };
}
