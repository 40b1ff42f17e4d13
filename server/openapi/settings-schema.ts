// JSON Schemas of printer_config, material_config and quote_config, generated from the settings
// catalogue in shared/settings.ts, so the document and the validator share one definition.
import { settingsOf, type SettingDef, type SettingSection } from '../../shared/settings.ts';

function fieldSchema(d: SettingDef): Record<string, unknown> {
  const base: Record<string, unknown> = { description: `${d.label}${d.unit ? ` (${d.unit})` : ''}. ${d.description}` };
  switch (d.type) {
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'enum':
      return { ...base, type: 'string', enum: [...(d.values ?? [])] };
    case 'string':
      return { ...base, type: 'string', minLength: 1, ...(d.maxLength ? { maxLength: d.maxLength } : {}) };
    default:
      return {
        ...base,
        type: d.type === 'integer' ? 'integer' : 'number',
        ...(d.min !== undefined ? (d.exclusiveMin ? { exclusiveMinimum: d.min } : { minimum: d.min }) : {}),
        ...(d.max !== undefined ? { maximum: d.max } : {}),
      };
  }
}

export function sectionSchema(section: SettingSection, opts: { profile?: boolean } = {}) {
  const defs = settingsOf(section).filter((d) => d.requestField || opts.profile);
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(defs.map((d) => [d.name, fieldSchema(d)])),
  };
}
