// Which settings each kind of slice profile holds, and their validation: used by the server (authoritative)
// and by the dashboard's forms, so a form refuses exactly what the API refuses, with the same field names.
import { type ConfigIssue, canonicalSection, validateConfigSection } from './settings.ts';

export type ProfileKind = 'printer' | 'material' | 'global';

/** Global settings may also carry the default layer heights (the global settings' default layer heights). */
export const GLOBAL_LAYER_FIELDS = ['layer_height', 'min_layer_height', 'max_layer_height'];
/** A material profile may carry a default colour and the colours the widget offers. */
export const MATERIAL_EXTRAS = ['color', 'colors'];

const renamed = (issues: ConfigIssue[]) =>
  issues.map((i) => ({ field: i.field.replace(/^\w+_config\./, 'settings.'), message: i.message }));

function pick(obj: Record<string, unknown>, keys: string[], keep: boolean) {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => keys.includes(k) === keep));
}

function colorIssues(settings: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const valid = (c: unknown) => typeof c === 'string' && c.trim().length > 0 && c.length <= 40;
  if (settings.color !== undefined && !valid(settings.color))
    issues.push({ field: 'settings.color', message: 'must be a colour name of 1 to 40 characters' });
  if (
    settings.colors !== undefined &&
    !(Array.isArray(settings.colors) && settings.colors.length <= 50 && settings.colors.every(valid))
  ) {
    issues.push({ field: 'settings.colors', message: 'must be a list of up to 50 colour names' });
  }
  return issues;
}

/** Every problem of a profile's settings, each naming its field as the API does (settings.<field>). */
export function validateProfileSettings(
  kind: ProfileKind,
  name: string,
  settings: Record<string, unknown>,
): ConfigIssue[] {
  if (kind === 'printer') return renamed(validateConfigSection('printer_config', settings, { source: 'profile' }));
  if (kind === 'material') {
    const issues = [
      ...renamed(validateConfigSection('material_config', pick(settings, MATERIAL_EXTRAS, false))),
      ...colorIssues(settings),
    ];
    if (settings.filament_type !== undefined && settings.filament_type !== name) {
      issues.push({
        field: 'settings.filament_type',
        message: 'must equal the profile name (materials are found by name)',
      });
    }
    return issues;
  }
  return [
    ...renamed(
      validateConfigSection('quote_config', pick(settings, GLOBAL_LAYER_FIELDS, false), { source: 'profile' }),
    ),
    ...renamed(validateConfigSection('printer_config', pick(settings, GLOBAL_LAYER_FIELDS, true))),
  ];
}

/** A valid profile's settings with their enumerated values in canonical spelling (any case is accepted). */
export function canonicalProfileSettings(
  kind: ProfileKind,
  settings: Record<string, unknown>,
): Record<string, unknown> {
  if (kind === 'printer') return canonicalSection('printer_config', settings);
  if (kind === 'material') return canonicalSection('material_config', settings);
  return canonicalSection('quote_config', settings);
}
