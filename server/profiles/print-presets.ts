// A shop's imported print presets as the qualities of its offer (docs/profiles.md, "Print presets as qualities"):
// each printer profile imported with a print preset is one quality that slices with that profile, named as in
// PrusaSlicer without the printer it is for ("0.20mm QUALITY @MK3" → "0.20mm QUALITY"), coarse to fine like the
// derived Draft, Standard and Fine.
import type { QualityPreset } from '../../shared/offer.ts';
import type { Queryable } from '../db/index.ts';
import { listProfiles, type ProfileRow } from './sql.ts';

/** Offer limits (shared/offer.ts): quality ids are at most 40 characters, labels 60, an offer has 12 qualities. */
const ID_MAX = 40;
const LABEL_MAX = 60;
const QUALITIES_MAX = 12;

const clip = (text: string) => (text.length > LABEL_MAX ? `${text.slice(0, LABEL_MAX - 1)}…` : text);
/** The suffix names the printer, which the shopper is not choosing. */
const withoutPrinter = (name: string) => name.replace(/\s+@[^@]*$/, '').trim() || name;

function slug(label: string): string {
  const s = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, ID_MAX)
    .replace(/-+$/, '');
  return s || 'preset';
}

function uniqueId(label: string, taken: Set<string>): string {
  let id = slug(label);
  for (let n = 2; taken.has(id); n++) id = `${slug(label).slice(0, ID_MAX - String(n).length - 1)}-${n}`;
  taken.add(id);
  return id;
}

/** One quality per printer profile made with a print preset, thickest layers first. */
export function qualitiesOf(rows: ProfileRow[]): QualityPreset[] {
  const presets = rows.filter((r) => r.kind === 'printer' && r.print_preset);
  const layer = (r: ProfileRow) => Number(r.settings.layer_height) || 0;
  presets.sort((a, b) => layer(b) - layer(a) || a.print_preset!.localeCompare(b.print_preset!));
  const short = presets.map((r) => withoutPrinter(r.print_preset!));
  const taken = new Set<string>();
  return presets.slice(0, QUALITIES_MAX).map((r, i) => {
    // Two presets that differ only by their printer suffix keep their whole names.
    const label = clip(short.indexOf(short[i]!) === short.lastIndexOf(short[i]!) ? short[i]! : r.print_preset!);
    return { id: uniqueId(label, taken), label, printer_config: {}, printer_profile: r.id };
  });
}

/**
 * The print presets imported with the account's default printer as qualities, with the default profile's one as
 * the default; null when the default printer profile was not imported with a print preset.
 */
export async function printPresetQualities(
  db: Queryable,
  accountId: string,
): Promise<{ qualities: QualityPreset[]; defaultQuality: string } | null> {
  const own = (await listProfiles(db, accountId, 'printer')).filter((r) => r.account_id !== null);
  const printer = own.find((r) => r.is_default);
  if (!printer?.printer_preset || !printer.print_preset) return null;
  const siblings = own.filter((r) => r.printer_preset === printer.printer_preset && r.print_preset);
  const qualities = qualitiesOf(siblings);
  const chosen = qualities.find((q) => q.printer_profile === printer.id) ?? qualities[0]!;
  return { qualities, defaultQuality: chosen.id };
}
