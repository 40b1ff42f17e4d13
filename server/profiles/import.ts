// Imports a shop's PrusaSlicer config as its profiles (docs/profiles.md): the checked preset set becomes
// printer profiles (the printer with each print preset) and material profiles (its filaments), each carrying
// its allowlisted PrusaSlicer options. Importing a preset again replaces what the earlier import made of it.

import type { QualityPreset } from '../../shared/offer.ts';
import { validateProfileSettings } from '../../shared/profiles.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ValidationError } from '../http/index.ts';
import { newId } from '../ids.ts';
import type { FlatPreset, PresetSet } from '../prusa-config/index.ts';
import { ConfigError, type ImportNote, screenPresetSet } from '../prusa-config/index.ts';
import { materialSettingsOf, printerSettingsOf } from './import-settings.ts';
import { qualitiesOf } from './print-presets.ts';
import { clearDefault, insertProfile, ownProfileByName, type ProfileKind, updateImported } from './sql.ts';

export interface ImportInput {
  set: PresetSet;
  /** What the reader could not carry over (untranslatable options, an inherited system preset). */
  ignored: ImportNote[];
  makeDefault: boolean;
  keepCustomGcode: boolean;
}

export interface ImportResult {
  profiles: { id: string; kind: 'printer' | 'material'; name: string }[];
  refused: ImportNote[];
  ignored: ImportNote[];
  /** The imported print presets as offer qualities (print-presets.ts); empty without print presets. */
  qualities: QualityPreset[];
  /** The custom G-code blocks kept because the import asked for them (docs/profiles.md, "Custom G-code"). */
  kept_custom_gcode: string[];
}

/** Profile names are at most 64 characters (ProfileInput.name). */
const NAME_MAX = 64;
const clip = (name: string) => (name.length > NAME_MAX ? `${name.slice(0, NAME_MAX - 1)}…` : name);

interface Planned {
  kind: 'printer' | 'material';
  name: string;
  preset: FlatPreset;
  /** The PrusaSlicer presets a printer profile is made of. */
  printerPreset: string | null;
  printPreset: string | null;
}

/** The printer alone, or the printer with each print preset ("<printer> — <print>"), then the filaments. */
function plan(set: PresetSet): Planned[] {
  const printers: Planned[] = [];
  const { printer, prints } = set;
  const printerPreset = printer?.name ?? null;
  if (prints.length === 0 && printer)
    printers.push({ kind: 'printer', name: clip(printer.name), preset: printer, printerPreset, printPreset: null });
  for (const print of prints) {
    const name = printer ? `${printer.name} — ${print.name}` : print.name;
    const preset: FlatPreset = {
      name,
      options: { ...printer?.options, ...print.options },
      sources: { ...printer?.sources, ...print.sources },
    };
    printers.push({ kind: 'printer', name: clip(name), preset, printerPreset, printPreset: print.name });
  }
  const materials = set.filaments.map(
    (f): Planned => ({ kind: 'material', name: clip(f.name), preset: f, printerPreset: null, printPreset: null }),
  );
  return [...printers, ...materials];
}

async function store(tx: Queryable, accountId: string, p: Planned, makeDefault: boolean) {
  const existing = await ownProfileByName(tx, accountId, p.kind as ProfileKind, p.name);
  const derived =
    p.kind === 'printer'
      ? printerSettingsOf(p.preset.options, p.name)
      : materialSettingsOf(p.preset.options, p.name, prices(existing?.settings ?? {}));
  // What the merchant set by hand beside an earlier import (hourly cost, colours...) stays, if it still fits.
  const merged = { ...existing?.settings, ...derived };
  const settings = validateProfileSettings(p.kind, p.name, merged).length ? derived : merged;
  if (makeDefault) await clearDefault(tx, accountId, p.kind);
  const imported = {
    settings,
    slicer_options: p.preset.options,
    slicer_sources: p.preset.sources,
    printer_preset: p.printerPreset,
    print_preset: p.printPreset,
  };
  if (existing)
    return updateImported(tx, accountId, existing.id, { ...imported, is_default: makeDefault ? true : undefined });
  const row = await insertProfile(tx, {
    id: newId('prof'),
    account_id: accountId,
    kind: p.kind,
    name: p.name,
    is_default: makeDefault,
    ...imported,
  });
  return row!;
}

function prices(settings: Record<string, unknown>): Record<string, unknown> {
  const { price_per_kg, price_per_gram } = settings;
  return Object.fromEntries(Object.entries({ price_per_kg, price_per_gram }).filter(([, v]) => v !== undefined));
}

export async function importConfig(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  input: ImportInput,
): Promise<ImportResult> {
  let screened: ReturnType<typeof screenPresetSet>;
  try {
    screened = screenPresetSet(input.set, { keepCustomGcode: input.keepCustomGcode });
  } catch (e) {
    throw asApiError(e);
  }
  const planned = plan(screened);
  if (planned.length === 0)
    throw new ValidationError([{ field: 'file', message: 'holds no printer, print or filament preset' }]);
  const rows = await deps.db.transaction(async (tx) => {
    const out = [];
    let defaultSet = false;
    for (const p of planned) {
      // The first printer profile becomes the default when asked: one default per kind.
      const makeDefault = input.makeDefault && p.kind === 'printer' && !defaultSet;
      if (makeDefault) defaultSet = true;
      out.push(await store(tx, accountId, p, makeDefault));
    }
    return out;
  });
  return {
    profiles: rows.map((r) => ({ id: r.id, kind: r.kind as 'printer' | 'material', name: r.name })),
    refused: screened.refused,
    ignored: [...input.ignored, ...screened.ignored],
    qualities: qualitiesOf(rows),
    kept_custom_gcode: screened.keptGcode,
  };
}

/** A reader's refusal as the API's typed 4xx, naming the option or the file. */
export function asApiError(e: unknown): unknown {
  if (e instanceof ConfigError) {
    return new ValidationError(
      [{ field: e.field, message: e.problem }],
      e.status,
      e.status === 413 ? 'config_too_large' : 'invalid_config',
    );
  }
  return e;
}
