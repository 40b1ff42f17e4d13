// Which settings change a slice, shown on real PrusaSlicer slices: every field that feeds the slicing key
// ('slice', and 'support' while supports are on) changes the extruded volume or the print time; the filament and
// temperature fields we no longer write would change neither, so changing them reuses a cached slice.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { buildSliceConfig, renderIni } from '../server/slicer/config.ts';
import { sliceOnce } from '../server/slicer/engine.ts';
import { SliceFailedError } from '../server/slicer/errors.ts';
import { parseGcodeFile, type SliceMeasure } from '../server/slicer/gcode-stats.ts';
import { DEFAULT_SETTINGS, type ResolvedSettings, SETTINGS } from '../shared/settings.ts';
import { boxesObj, T_SHAPE_OBJ, WEDGE_OBJ } from './helpers/meshes.ts';

const run = promisify(execFile);

// Four pillars round a block: travel, retraction, perimeters, solid and sparse infill on every layer.
const PILLARS_OBJ = boxesObj([
  [0, 0, 0, 4, 4, 5],
  [26, 0, 0, 30, 4, 5],
  [0, 26, 0, 4, 30, 5],
  [26, 26, 0, 30, 30, 5],
  [10, 10, 0, 20, 20, 4],
]);

type Part = 'pillars' | 'tee' | 'wedge';
/** A second value for each key field, and the part (with supports on for support fields) on which it shows. */
const CHANGED: Record<string, [value: unknown, part: Part]> = {
  nozzle_diameter: [0.6, 'pillars'],
  print_speed: [40, 'pillars'],
  max_print_speed: [50, 'pillars'],
  travel_speed: [100, 'pillars'],
  first_layer_speed: [30, 'pillars'],
  layer_height: [0.25, 'pillars'],
  perimeters: [3, 'pillars'],
  top_solid_layers: [6, 'pillars'],
  bottom_solid_layers: [5, 'pillars'],
  min_wall_count: [3, 'pillars'],
  max_wall_count: [1, 'pillars'],
  fill_density: [40, 'pillars'],
  infill_pattern: ['gyroid', 'pillars'],
  acceleration_print: [500, 'pillars'],
  acceleration_travel: [500, 'pillars'],
  acceleration_retraction: [500, 'pillars'],
  jerk_print: [4, 'pillars'],
  jerk_retraction: [5, 'pillars'],
  retraction_distance: [3, 'pillars'],
  retraction_speed: [20, 'pillars'],
  support_material: [false, 'tee'],
  support_density: [50, 'tee'],
  min_layer_height: [0.2, 'tee'],
  max_layer_height: [0.25, 'tee'],
  support_overhang_angle: [70, 'wedge'],
};
/** The bed fields change the outcome instead: a part bigger than the bed fails (they also move the first travel). */
const FIT_FIELDS = ['bed_size_x', 'bed_size_y', 'bed_size_z'];
/** The PrusaSlicer options each unwritten field would drive, with a second value. */
const UNWRITTEN: Record<string, Record<string, string>> = {
  temperature: { temperature: '240', first_layer_temperature: '240' },
  bed_temperature: { bed_temperature: '90', first_layer_bed_temperature: '90' },
  fan_speed: { max_fan_speed: '50', bridge_fan_speed: '50' },
  min_fan_speed: { min_fan_speed: '60', max_fan_speed: '100', fan_always_on: '1' },
  density: { filament_density: '2' },
  diameter: { filament_diameter: '2.85' },
};

let dir: string;
const mesh = (part: Part) => join(dir, `${part}.obj`);
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slicequote-effects-'));
  await Promise.all([
    writeFile(mesh('pillars'), PILLARS_OBJ),
    writeFile(mesh('tee'), T_SHAPE_OBJ),
    writeFile(mesh('wedge'), WEDGE_OBJ),
  ]);
});
after(() => rm(dir, { recursive: true, force: true }));

function settingsFor(part: Part): ResolvedSettings {
  const s = structuredClone(DEFAULT_SETTINGS);
  s.printer.support_material = part !== 'pillars';
  return s;
}

function withValue(s: ResolvedSettings, field: string, value: unknown): ResolvedSettings {
  const out = structuredClone(s);
  const def = SETTINGS.find((d) => d.name === field)!;
  (def.section === 'printer_config' ? out.printer : (out.material as Record<string, unknown>))[field as never] =
    value as never;
  return out;
}

interface Raw {
  measure: SliceMeasure;
  motion: string;
}
/** Slices a config given as PrusaSlicer options, keeping the moves (G0-G3, G92) for comparison. */
async function sliceRaw(part: Part, options: Record<string, string>): Promise<Raw> {
  const work = await mkdtemp(join(dir, 'raw-'));
  try {
    await writeFile(join(work, 'config.ini'), renderIni(options));
    const out = join(work, 'out.gcode');
    await run(
      'prusa-slicer',
      [
        '--loglevel',
        '1',
        '--datadir',
        join(work, 'data'),
        '--export-gcode',
        '--load',
        join(work, 'config.ini'),
        '--output',
        out,
        mesh(part),
      ],
      { env: { PATH: process.env.PATH, HOME: work, LC_ALL: 'C' }, maxBuffer: 1 << 24 },
    );
    const measure = await parseGcodeFile(out, { filamentDiameter: Number(options.filament_diameter) });
    const motion = (await readFile(out, 'utf8'))
      .split('\n')
      .filter((l) => /^G[0-3]\b|^G92\b/.test(l))
      .join('\n');
    return { measure, motion };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The first move that differs between two G-code motions (line number and both lines), or undefined. */
function firstDifference(a: string, b: string): string | undefined {
  if (a === b) return undefined;
  const [la, lb] = [a.split('\n'), b.split('\n')];
  const i = la.findIndex((line, j) => line !== lb[j]);
  const at = i === -1 ? la.length : i;
  return `move ${at + 1} of ${la.length}/${lb.length}: ${la[at] ?? '(end)'} | ${lb[at] ?? '(end)'}`;
}

/** Length of the extruding moves and of the travel moves in XY, mm. */
function pathLengths(motion: string): { extruding: number; travel: number } {
  let [x, y, extruding, travel] = [0, 0, 0, 0];
  for (const line of motion.split('\n')) {
    if (!/^G[01] /.test(line)) continue;
    const word = (c: string) => {
      const m = new RegExp(` ${c}(-?[\\d.]+)`).exec(line);
      return m ? Number(m[1]) : undefined;
    };
    const [nx, ny, e] = [word('X') ?? x, word('Y') ?? y, word('E')];
    const d = Math.hypot(nx - x, ny - y);
    if (e !== undefined && e > 0) extruding += d;
    else travel += d;
    [x, y] = [nx, ny];
  }
  return { extruding, travel };
}

/**
 * The same toolpath: the same extruding and travel lengths, volume and time. PrusaSlicer's threads sometimes
 * split or join a straight segment differently from one run to the next (the same line as one move or two), so
 * the moves themselves are not compared one by one; the first differing move is named when the paths differ.
 */
function sameToolpath(a: Raw, b: Raw): string | undefined {
  const [pa, pb] = [pathLengths(a.motion), pathLengths(b.motion)];
  const same =
    Math.abs(pa.extruding - pb.extruding) < 0.05 &&
    Math.abs(pa.travel - pb.travel) < 0.05 &&
    Math.abs(a.measure.extruded_volume_mm3 - b.measure.extruded_volume_mm3) < 0.01 &&
    Math.abs(a.measure.print_time_s - b.measure.print_time_s) <= 1;
  if (same) return undefined;
  const mm = (p: { extruding: number; travel: number }) => `${p.extruding.toFixed(2)}/${p.travel.toFixed(2)} mm`;
  return `extruding/travel ${mm(pa)} -> ${mm(pb)}, ${describeChange(a.measure, b.measure)}; ${firstDifference(a.motion, b.motion)}`;
}

const changes = (a: SliceMeasure, b: SliceMeasure) =>
  Math.abs(a.extruded_volume_mm3 - b.extruded_volume_mm3) > 0.01 || a.print_time_s !== b.print_time_s;
const describeChange = (a: SliceMeasure, b: SliceMeasure) =>
  `volume ${a.extruded_volume_mm3.toFixed(2)} -> ${b.extruded_volume_mm3.toFixed(2)} mm³, time ${a.print_time_s} -> ${b.print_time_s} s`;

const baseSlices = new Map<Part, Promise<SliceMeasure>>();
const baseSlice = (part: Part) => {
  if (!baseSlices.has(part))
    baseSlices.set(
      part,
      sliceOnce({ meshPath: mesh(part), settings: settingsFor(part) }).then((o) => o.stats),
    );
  return baseSlices.get(part)!;
};

describe('what changes a slice (real PrusaSlicer)', () => {
  test('the tables cover the catalogue: every key field, every filament or temperature option we no longer write', () => {
    const keyFields = SETTINGS.filter((d) => d.affects === 'slice' || d.affects === 'support').map((d) => d.name);
    assert.deepEqual([...Object.keys(CHANGED), ...FIT_FIELDS].sort(), keyFields.sort());
    for (const d of SETTINGS.filter((d) => d.affects === 'stats')) assert.ok(UNWRITTEN[d.name], d.name);
    for (const name of Object.keys(UNWRITTEN))
      assert.match(SETTINGS.find((d) => d.name === name)!.affects, /^(stats|none)$/, name);
  });

  for (const [field, [value, part]] of Object.entries(CHANGED)) {
    test(`${field} changes the extruded volume or the print time`, async () => {
      const settings = withValue(settingsFor(part), field, value);
      const [base, changed] = await Promise.all([
        baseSlice(part),
        sliceOnce({ meshPath: mesh(part), settings }).then((o) => o.stats),
      ]);
      assert.ok(changes(base, changed), `${field} = ${value}: ${describeChange(base, changed)}`);
    });
  }

  for (const field of ['support_density', 'support_overhang_angle', 'min_layer_height', 'max_layer_height']) {
    test(`${field} changes nothing while supports are off`, async () => {
      const entry = CHANGED[field];
      assert.ok(entry, `${field} has a changed value`);
      const [value, part] = entry;
      const off = (s: ResolvedSettings) => ({ ...buildSliceConfig(s).options, support_material: '0' });
      const [base, changed] = await Promise.all([
        sliceRaw(part, off(settingsFor(part))),
        sliceRaw(part, off(withValue(settingsFor(part), field, value))),
      ]);
      assert.equal(sameToolpath(base, changed), undefined, `${field} moved the G-code without supports`);
    });
  }

  test('a part bigger than bed_size_x, bed_size_y or bed_size_z fails to slice; the same part fits the default bed', async () => {
    for (const field of FIT_FIELDS) {
      await assert.rejects(
        sliceOnce({ meshPath: mesh('pillars'), settings: withValue(settingsFor('pillars'), field, 3) }),
        (e: unknown) => e instanceof SliceFailedError && e.code === 'exceeds_build_volume',
        field,
      );
    }
    assert.ok((await baseSlice('pillars')).extruded_volume_mm3 > 0);
  });

  for (const [field, options] of Object.entries(UNWRITTEN)) {
    test(`${field} would change neither the extruded volume nor the print time`, async () => {
      const plain = buildSliceConfig(settingsFor('pillars')).options;
      const [base, changed] = await Promise.all([
        sliceRaw('pillars', plain),
        sliceRaw('pillars', { ...plain, ...options }),
      ]);
      assert.ok(
        Math.abs(changed.measure.extruded_volume_mm3 - base.measure.extruded_volume_mm3) < 0.05,
        `${field}: ${describeChange(base.measure, changed.measure)}`,
      );
      if (field !== 'diameter') {
        const moved = sameToolpath(base, changed);
        if (moved === undefined) return;
        // On a loaded machine PrusaSlicer may start the layers' islands in another order from one run to the next
        // (travel only). A difference is the field's only when no slice with it makes the moves of one without it:
        // up to three more of each are sliced until two match.
        const withouts = [base];
        const withs = [changed];
        const matched = () => withouts.some((a) => withs.some((b) => sameToolpath(a, b) === undefined));
        for (let round = 0; round < 3 && !matched(); round++) {
          const [a, b] = await Promise.all([sliceRaw('pillars', plain), sliceRaw('pillars', { ...plain, ...options })]);
          withouts.push(a);
          withs.push(b);
        }
        assert.ok(matched(), `${field} changed a move in ${withs.length} slices against ${withouts.length}: ${moved}`);
        const [pb, pc] = [pathLengths(base.motion), pathLengths(changed.motion)];
        assert.ok(Math.abs(pb.extruding - pc.extruding) < 0.05, `${field} changed an extruding move: ${moved}`);
        return;
      }
      // A thicker filament shortens every E move; the moves are otherwise the same, and only the estimator's
      // extruder-jerk term can notice (under 0.1 %: 3 s of 68 min on a Benchy), so the time is the reference's.
      const [pb, pc] = [pathLengths(base.motion), pathLengths(changed.motion)];
      assert.ok(
        Math.abs(pb.extruding - pc.extruding) < 0.05 && Math.abs(pb.travel - pc.travel) < 0.05,
        `diameter changed a move beyond its E: ${firstDifference(base.motion, changed.motion)}`,
      );
      const drift = Math.abs(changed.measure.print_time_s - base.measure.print_time_s);
      assert.ok(
        drift <= Math.max(1, base.measure.print_time_s * 0.001),
        `diameter: ${describeChange(base.measure, changed.measure)}`,
      );
    });
  }
});
