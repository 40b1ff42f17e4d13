// Streaming reader of PrusaSlicer 2.5 G-code: the slice's measure. G-code can be tens of MB, so it is read in
// chunks and never held whole. Length and time come from PrusaSlicer's footer comments; the support share is our
// own sum of E on extruding moves inside ;TYPE:Support material[ interface] sections.
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Bump when this reader's results change for the same G-code, so cached measures are recomputed. */
export const STATS_REVISION = 2;

/** What a slice yields, independent of the filament's density and diameter (cached per slicing key). */
export interface SliceMeasure {
  /** Filament extruded: model, support and skirt, mm³. */
  extruded_volume_mm3: number;
  /** Support extrusion over all extrusion, 0..1. */
  support_share: number;
  print_time_s: number;
  layers: number;
  /** Highest layer Z: the printed height, for the build-volume check. */
  max_z_mm: number;
}

export interface StatsOptions {
  /** Diameter of the filament the G-code was sliced for: footer length × its cross-section = volume. The
   *  footer's own volume is rounded to 0.01 cm³ (20 % off on a small part); its length to 0.01 mm. */
  filamentDiameter: number;
}

export class GcodeStatsError extends Error {
  override name = 'GcodeStatsError';
}

const SUPPORT_TYPES = new Set(['Support material', 'Support material interface']);

/** Parses PrusaSlicer durations such as "1d 2h 3m 4s" or "18m 50s" into seconds. */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1 };
  let total = 0;
  let matched = false;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)\s*([dhms])\b/g)) {
    total += Number(m[1]) * units[m[2]!]!;
    matched = true;
  }
  if (!matched) throw new GcodeStatsError(`unreadable print time "${text.trim()}"`);
  return total;
}

/** "1.5, 2.5" (one value per extruder) -> 4. */
const sumList = (text: string): number => text.split(',').reduce((a, v) => a + Number(v), 0);

/** The statistics PrusaSlicer writes in its G-code's footer (each absent when the line is). */
export interface GcodeFooter {
  filament_length_mm?: number;
  /** From the filament density of the config the G-code was sliced with (0 when it sets none). */
  filament_weight_g?: number;
  print_time_s?: number;
}

/** One footer line ("; filament used [mm] = 1234.5") into `into`; other lines leave it as it is. */
function footerLine(raw: string, into: GcodeFooter): void {
  const eq = raw.indexOf(' = ');
  if (eq < 0) return;
  const key = raw.slice(2, eq);
  const value = raw.slice(eq + 3).trimEnd();
  if (key === 'filament used [mm]') into.filament_length_mm = sumList(value);
  else if (key === 'filament used [g]') into.filament_weight_g = sumList(value);
  else if (key === 'estimated printing time (normal mode)') into.print_time_s = parseDuration(value);
}

/**
 * The footer statistics in a piece of G-code text (a file's tail: the footer is its last part), read line by
 * line as the slice's own measure reads them. Throws GcodeStatsError on an unreadable print time.
 */
export function readGcodeFooter(text: string): GcodeFooter {
  const footer: GcodeFooter = {};
  for (const line of text.split('\n')) if (line.startsWith('; ')) footerLine(line, footer);
  return footer;
}

/** Incremental parser: push() decoded text in any chunking, then end(). */
export class GcodeStatsParser {
  private rest = '';
  private type = '';
  private relativeE = false;
  private lastE = 0;
  private totalE = 0;
  private supportE = 0;
  private layers = 0;
  private maxZ = 0;
  private footer: GcodeFooter = {};

  push(chunk: string): void {
    const text = this.rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl));
      start = nl + 1;
    }
    this.rest = text.slice(start);
  }

  end(opts: StatsOptions): SliceMeasure {
    if (this.rest) this.line(this.rest);
    this.rest = '';
    return this.result(opts);
  }

  private line(raw: string): void {
    const c = raw.charCodeAt(0);
    if (c === 59 /* ; */) this.comment(raw);
    else if (c === 71 /* G */) this.gMove(raw);
    else if (raw.startsWith('M82')) this.relativeE = false;
    else if (raw.startsWith('M83')) this.relativeE = true;
  }

  private comment(raw: string): void {
    if (raw.startsWith(';TYPE:')) this.type = raw.slice(6).trim();
    else if (raw.startsWith(';LAYER_CHANGE')) this.layers++;
    else if (raw.startsWith(';Z:')) this.maxZ = Math.max(this.maxZ, Number(raw.slice(3)) || 0);
    else if (raw.startsWith('; ')) footerLine(raw, this.footer);
  }

  // Counts E only on moves that also travel in XY: retract/unretract (E alone) are not extrusion.
  private gMove(raw: string): void {
    const cmd = raw.slice(0, 3);
    if (cmd === 'G92') {
      this.setPosition(raw);
      return;
    }
    if (cmd !== 'G1 ' && cmd !== 'G0 ' && cmd !== 'G2 ' && cmd !== 'G3 ') return;
    let e: number | undefined;
    let xy = false;
    for (const word of stripComment(raw).split(' ')) {
      const axis = word.charCodeAt(0);
      if (axis === 69 /* E */) e = Number(word.slice(1));
      else if (axis === 88 || axis === 89 /* X Y */) xy = true;
    }
    if (e === undefined || Number.isNaN(e)) return;
    const delta = this.relativeE ? e : e - this.lastE;
    if (!this.relativeE) this.lastE = e;
    if (!xy || delta <= 0) return;
    this.totalE += delta;
    if (SUPPORT_TYPES.has(this.type)) this.supportE += delta;
  }

  private setPosition(raw: string): void {
    const m = /\bE(-?[\d.]+)/.exec(stripComment(raw));
    if (m) this.lastE = Number(m[1]);
  }

  private result(opts: StatsOptions): SliceMeasure {
    const { filament_length_mm: length, print_time_s: time } = this.footer;
    if (length === undefined || time === undefined) {
      throw new GcodeStatsError(
        "the G-code lacks PrusaSlicer's statistics footer (filament used, estimated printing time)",
      );
    }
    return {
      extruded_volume_mm3: length * Math.PI * (opts.filamentDiameter / 2) ** 2,
      support_share: this.totalE > 0 ? this.supportE / this.totalE : 0,
      print_time_s: time,
      layers: this.layers,
      max_z_mm: this.maxZ,
    };
  }
}

function stripComment(raw: string): string {
  const i = raw.indexOf(';');
  return (i < 0 ? raw : raw.slice(0, i)).trim();
}

export function parseGcodeText(text: string, opts: StatsOptions): SliceMeasure {
  const p = new GcodeStatsParser();
  p.push(text);
  return p.end(opts);
}

/** Reads a G-code file in 256 KiB chunks. */
export async function parseGcodeFile(path: string, opts: StatsOptions): Promise<SliceMeasure> {
  const p = new GcodeStatsParser();
  const decoder = new StringDecoder('utf8');
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) {
    p.push(decoder.write(chunk as Buffer));
  }
  p.push(decoder.end());
  return p.end(opts);
}
