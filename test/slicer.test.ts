// Slicing engine tests against the real PrusaSlicer CLI, on small OBJ fixtures written here.
// Run: node --import tsx --test test/slicer.test.ts
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { slicerChoice, slicerTreeDir } from '../server/config.ts';
import { BASE_OPTIONS, ONLY_IN_2_5, ONLY_IN_2_9 } from '../server/slicer/base-config.ts';
import { buildSliceConfig } from '../server/slicer/config.ts';
import { detectSlicer, type SliceOutcome, sliceOnce } from '../server/slicer/engine.ts';
import {
  PoolClosedError,
  PoolFullError,
  SettingsInvalidError,
  ShortLaneOutgrownError,
  SliceAbortedError,
  SliceFailedError,
  SliceTimeoutError,
} from '../server/slicer/errors.ts';
import { GcodeStatsParser, parseDuration, parseGcodeText, readGcodeFooter } from '../server/slicer/gcode-stats.ts';
import { mapInfillPattern } from '../server/slicer/patterns.ts';
import { createSlicePool } from '../server/slicer/pool.ts';
import { printStats } from '../server/slicer/print-stats.ts';
import type { SliceStats } from '../shared/print-stats.ts';
import {
  DEFAULT_SETTINGS,
  getSetting,
  INFILL_PATTERNS,
  type ResolvedSettings,
  SETTINGS,
  type SettingDef,
  SLICE_FIELDS,
  validateConfigSection,
  validateResolvedSettings,
} from '../shared/settings.ts';
import { corpusPath } from './helpers/corpus.ts';
import { until } from './helpers/poll.ts';
import { holdSlicers, runningSlicers, someSlicers } from './helpers/slicer-hold.ts';

/** Fields of /proc/<pid>/stat after the command name (field 3 first); empty once it is gone. */
function statFields(pid: number): string[] {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return [];
  }
}
/** CPU ticks used (utime + stime). */
const cpuTicksOf = (pid: number) => Number(statFields(pid)[11] ?? 0) + Number(statFields(pid)[12] ?? 0);
/** The nice value of its main thread. */
const nicenessOf = (pid: number) => Number(statFields(pid)[16]);

/** A process's state letter (R, S, T for stopped, …) from /proc; undefined once it is gone. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

type Box = [x0: number, y0: number, z0: number, x1: number, y1: number, z1: number];

/** OBJ text of axis-aligned boxes, outward-facing triangles, in mm. */
function boxesObj(boxes: Box[]): string {
  const lines: string[] = [];
  boxes.forEach(([x0, y0, z0, x1, y1, z1], i) => {
    for (const [x, y, z] of [
      [x0, y0, z0],
      [x1, y0, z0],
      [x1, y1, z0],
      [x0, y1, z0],
      [x0, y0, z1],
      [x1, y0, z1],
      [x1, y1, z1],
      [x0, y1, z1],
    ]) {
      lines.push(`v ${x} ${y} ${z}`);
    }
    const o = i * 8;
    for (const [a, b, c] of [
      [1, 3, 2],
      [1, 4, 3],
      [5, 6, 7],
      [5, 7, 8],
      [1, 2, 6],
      [1, 6, 5],
      [2, 3, 7],
      [2, 7, 6],
      [3, 4, 8],
      [3, 8, 7],
      [4, 1, 5],
      [4, 5, 8],
    ] as const) {
      lines.push(`f ${a + o} ${b + o} ${c + o}`);
    }
  });
  return `${lines.join('\n')}\n`;
}

const SPEC_FIELDS = {
  printer_config:
    'bed_size_x bed_size_y bed_size_z nozzle_diameter nozzle_count print_speed max_print_speed travel_speed first_layer_speed layer_height min_layer_height max_layer_height perimeters top_solid_layers bottom_solid_layers min_wall_count max_wall_count fill_density infill_pattern support_material support_overhang_angle support_density acceleration_print acceleration_travel acceleration_retraction jerk_print jerk_travel jerk_retraction min_hotend_temp max_hotend_temp min_bed_temp max_bed_temp hourly_cost',
  material_config:
    'filament_type density diameter temperature print_temp_min print_temp_max bed_temperature bed_temp_min bed_temp_max fan_speed min_fan_speed retraction_distance retraction_speed price_per_kg price_per_gram support_cost_multiplier',
  quote_config: 'currency tax_rate fixed_fee energy_cost_per_kwh',
} as const;

type Overrides = { printer?: Partial<ResolvedSettings['printer']>; material?: Partial<ResolvedSettings['material']> };
function settingsWith(o: Overrides = {}): ResolvedSettings {
  const s = structuredClone(DEFAULT_SETTINGS);
  Object.assign(s.printer, o.printer);
  Object.assign(s.material, o.material);
  return s;
}

let dir: string;
let cube: string; // 20 mm cube
let tee: string; // T: 6 mm stem, 30 mm arms overhanging in the air
const BENCHY = corpusPath('stl', '3DBenchy.stl');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slicequote-test-'));
  cube = join(dir, 'cube.obj');
  tee = join(dir, 'tee.obj');
  await writeFile(cube, boxesObj([[0, 0, 0, 20, 20, 20]]));
  await writeFile(
    tee,
    boxesObj([
      [12, 0, 0, 18, 6, 16],
      [0, 0, 15, 30, 6, 19],
    ]),
  );
});
after(() => rm(dir, { recursive: true, force: true }));

type Sliced = SliceOutcome & { print: SliceStats };
const memo = new Map<string, Promise<Sliced>>();
/** A real slice, with the print statistics a quote would report for those settings. */
function slice(mesh: string, o: Overrides = {}): Promise<Sliced> {
  const key = mesh + JSON.stringify(o);
  const settings = settingsWith(o);
  if (!memo.has(key)) {
    memo.set(
      key,
      sliceOnce({ meshPath: mesh, settings, timeoutMs: 60_000 }).then((out) => ({
        ...out,
        print: printStats(out.stats, settings.material),
      })),
    );
  }
  return memo.get(key)!;
}

describe('settings catalogue', () => {
  test('holds every request field, power_watts, exchange_rates and quote_validity_days as profile-only fields, and minimum_price', () => {
    for (const [section, names] of Object.entries(SPEC_FIELDS)) {
      for (const name of names.split(' '))
        assert.ok(getSetting(section as keyof typeof SPEC_FIELDS, name), `${section}.${name}`);
    }
    const extra = SETTINGS.filter((d) => !SPEC_FIELDS[d.section].split(' ').includes(d.name));
    assert.deepEqual(
      extra.map((d) => [d.name, d.requestField]),
      [
        ['power_watts', false],
        ['minimum_price', true],
        ['exchange_rates', false],
        ['quote_validity_days', false],
      ],
    );
  });

  test('lists the 19 infill patterns and bounds percent fields to 0-100', () => {
    assert.equal(INFILL_PATTERNS.length, 19);
    assert.deepEqual(getSetting('printer_config', 'infill_pattern')!.values, INFILL_PATTERNS);
    for (const [s, n] of [
      ['printer_config', 'fill_density'],
      ['printer_config', 'support_density'],
      ['material_config', 'fan_speed'],
      ['material_config', 'min_fan_speed'],
      ['quote_config', 'tax_rate'],
    ] as const) {
      const d = getSetting(s, n)!;
      assert.deepEqual([d.min, d.max, d.exclusiveMin ?? false], [0, 100, false], n);
    }
  });

  test('price-only fields never feed the slice', () => {
    for (const n of [
      'hourly_cost',
      'power_watts',
      'price_per_kg',
      'price_per_gram',
      'support_cost_multiplier',
      'currency',
      'tax_rate',
      'fixed_fee',
      'energy_cost_per_kwh',
      'minimum_price',
      'exchange_rates',
    ]) {
      assert.equal(SETTINGS.find((d) => d.name === n)!.affects, 'price', n);
    }
  });

  test('validation names every bad field: range, type, integer, enum, unknown', () => {
    const issues = validateConfigSection('printer_config', {
      fill_density: 101,
      layer_height: '0.2',
      perimeters: 2.5,
      infill_pattern: 'spiral',
      print_speed: 0,
      bogus: 1,
      power_watts: 100,
    });
    assert.deepEqual(issues.map((i) => i.field).sort(), [
      'printer_config.bogus',
      'printer_config.fill_density',
      'printer_config.infill_pattern',
      'printer_config.layer_height',
      'printer_config.perimeters',
      'printer_config.power_watts',
      'printer_config.print_speed',
    ]);
    assert.match(issues.find((i) => i.field.endsWith('fill_density'))!.message, /at most 100/);
    assert.deepEqual(validateConfigSection('printer_config', { power_watts: 100 }, { source: 'profile' }), []);
    assert.deepEqual(
      validateConfigSection('quote_config', { currency: 'dollars', tax_rate: -1 }).map((i) => i.field),
      ['quote_config.currency', 'quote_config.tax_rate'],
    );
    assert.deepEqual(
      validateConfigSection('quote_config', { currency: 'usd' }),
      [],
      'enums take any case (docs/api-conventions.md)',
    );
    assert.deepEqual(validateConfigSection('material_config', [1]), [
      { field: 'material_config', message: 'must be an object' },
    ]);
    assert.deepEqual(
      validateConfigSection('material_config', { filament_type: 'PLA', density: 1.3, temperature: 215 }),
      [],
    );
  });

  test('defaults are complete; cross-field rules name the field to change', () => {
    assert.deepEqual(validateResolvedSettings(DEFAULT_SETTINGS), []);
    const bad = settingsWith({
      printer: { layer_height: 0.5, max_layer_height: 0.6, nozzle_diameter: 0.4, min_wall_count: 5, max_wall_count: 3 },
      material: { temperature: 320, min_fan_speed: 100, fan_speed: 50 },
    });
    const fields = validateResolvedSettings(bad).map((i) => i.field);
    for (const f of [
      'printer_config.layer_height',
      'printer_config.max_wall_count',
      'material_config.temperature',
      'material_config.min_fan_speed',
    ])
      assert.ok(fields.includes(f), f);
  });
});

/** A different valid value for a field, for the mapping coverage test. */
function otherValue(d: SettingDef, v: unknown): unknown {
  if (d.type === 'boolean') return !v;
  if (d.type === 'enum') return d.name === 'infill_pattern' ? 'gyroid' : d.values!.find((x) => x !== v);
  if (d.type === 'string') return 'XYZ';
  if (d.name === 'min_wall_count') return 3; // above the default perimeters: the clamp shows
  if (d.name === 'max_wall_count') return 1;
  if (d.name === 'support_density') return 50; // 15 % and 11 % slice alike (both round to 12.5 %)
  return d.type === 'integer' ? (v as number) + 1 : (v as number) * 0.75 + 0.01;
}

describe('config mapping', () => {
  test('slice fields change the PrusaSlicer config, support fields only with supports on, all others never', () => {
    for (const supports of [false, true]) {
      const start = settingsWith({ printer: { support_material: supports } });
      const base = buildSliceConfig(start).ini;
      for (const d of SETTINGS) {
        const s = structuredClone(start) as unknown as Record<string, Record<string, unknown>>;
        const key = d.section === 'printer_config' ? 'printer' : d.section === 'material_config' ? 'material' : 'quote';
        const section = s[key];
        assert.ok(section, key);
        section[d.name] = otherValue(d, section[d.name]);
        const changed = buildSliceConfig(s as unknown as ResolvedSettings).ini !== base;
        const expected = d.affects === 'slice' || (supports && d.affects === 'support');
        assert.equal(changed, expected, `${d.section}.${d.name} (${d.affects}), supports ${supports}`);
      }
    }
    assert.ok(SLICE_FIELDS.length >= 25);
  });

  test('writes the fixed G-code shape and the request values', () => {
    const { options } = buildSliceConfig(
      settingsWith({ printer: { bed_size_x: 300, bed_size_y: 200, bed_size_z: 150, fill_density: 35 } }),
    );
    assert.equal(options.gcode_flavor, 'marlin2');
    assert.equal(options.use_relative_e_distances, '1');
    assert.equal(options.gcode_comments, '0');
    assert.equal(options.machine_limits_usage, 'time_estimate_only');
    assert.equal(options.bed_shape, '0x0,300x0,300x200,0x200');
    assert.equal(options.max_print_height, '150');
    assert.equal(options.fill_density, '35%');
    assert.equal(options.support_material_style, 'snug');
    assert.equal(options.post_process, '');
  });

  test('maps all 19 patterns, reporting the substitutes', () => {
    const prusa = [
      'rectilinear',
      'alignedrectilinear',
      'grid',
      'triangles',
      'stars',
      'cubic',
      'line',
      'concentric',
      'honeycomb',
      '3dhoneycomb',
      'gyroid',
      'hilbertcurve',
      'archimedeanchords',
      'octagramspiral',
      'adaptivecubic',
      'supportcubic',
      'lightning',
    ];
    for (const p of INFILL_PATTERNS) assert.ok(prusa.includes(mapInfillPattern(p).used), p);
    assert.deepEqual(mapInfillPattern('zigzag'), { requested: 'zigzag', used: 'rectilinear', exact: false });
    assert.deepEqual(mapInfillPattern('honeycomb3d'), { requested: 'honeycomb3d', used: '3dhoneycomb', exact: true });
  });

  test('wall counts clamp perimeters; max_print_speed caps speeds', () => {
    assert.equal(buildSliceConfig(settingsWith({ printer: { perimeters: 8, max_wall_count: 3 } })).perimeters, 3);
    assert.equal(buildSliceConfig(settingsWith({ printer: { perimeters: 1, min_wall_count: 2 } })).perimeters, 2);
    const { options } = buildSliceConfig(settingsWith({ printer: { print_speed: 300, max_print_speed: 100 } }));
    assert.equal(options.infill_speed, '100');
  });
});

describe('G-code statistics', () => {
  const gcode = [
    'M83',
    ';LAYER_CHANGE',
    ';Z:0.2',
    'G1 Z.2 F7800',
    'G1 E-.8 F2100',
    'G1 X10 Y10',
    'G1 E.8 F2100',
    ';TYPE:Perimeter',
    'G1 X20 Y10 E3',
    'G1 X20 Y20 E3 ; comment',
    ';TYPE:Support material',
    'G1 X30 Y20 E2',
    ';TYPE:Support material interface',
    'G1 X30 Y30 E1',
    ';LAYER_CHANGE',
    ';Z:0.4',
    ';TYPE:Internal infill',
    'G1 X0 Y0 E1',
    '; filament used [mm] = 10.00',
    '; filament used [cm3] = 0.02',
    '; filament used [g] = 0.03',
    '; estimated printing time (normal mode) = 1h 2m 3s',
    '; estimated printing time (silent mode) = 2h 0m 0s',
  ].join('\n');

  const ref = { filamentDiameter: 1.75 };

  test('reads the volume (footer length × filament cross-section), layers, time and the support share (retracts excluded)', () => {
    const s = parseGcodeText(gcode, ref);
    assert.deepEqual(s, {
      extruded_volume_mm3: 10 * Math.PI * 0.875 ** 2,
      print_time_s: 3723,
      layers: 2,
      support_share: 0.3,
      max_z_mm: 0.4,
    });
  });

  test('gives the same result whatever the chunking', () => {
    const p = new GcodeStatsParser();
    for (let i = 0; i < gcode.length; i += 7) p.push(gcode.slice(i, i + 7));
    assert.deepEqual(p.end(ref), parseGcodeText(gcode, ref));
  });

  test('grams and filament length follow from the volume and the material, exactly', () => {
    const measure = parseGcodeText(gcode, ref);
    const pla = printStats(measure, { density: 1.24, diameter: 1.75 });
    assert.equal(pla.filament_length_mm, 10);
    assert.ok(Math.abs(pla.filament_weight_g - ((10 * Math.PI * 0.875 ** 2) / 1000) * 1.24) < 1e-12);
    assert.ok(Math.abs(pla.support_weight_g - pla.filament_weight_g * 0.3) < 1e-12);
    const thick = printStats(measure, { density: 2.48, diameter: 2.85 });
    assert.ok(
      Math.abs(thick.filament_weight_g - 2 * pla.filament_weight_g) < 1e-12,
      'twice the density, twice the grams',
    );
    assert.equal(
      thick.filament_length_mm,
      Math.round(10 * (1.75 / 2.85) ** 2 * 100) / 100,
      'same volume, shorter filament',
    );
  });

  test('handles absolute E, durations and a missing footer', () => {
    const abs = [
      'M82',
      'G92 E0',
      ';TYPE:Perimeter',
      'G1 X1 Y1 E5',
      ';TYPE:Support material',
      'G1 X2 Y2 E10',
      'G92 E0',
      'G1 X3 Y3 E5',
      '; filament used [mm] = 15',
      '; filament used [cm3] = 0.1',
      '; estimated printing time (normal mode) = 40s',
    ].join('\n');
    assert.equal(parseGcodeText(abs, ref).support_share, 10 / 15);
    assert.equal(parseDuration('2d 0h 1m 5s'), 172865);
    assert.throws(() => parseGcodeText('G1 X1 E1\n', ref), /footer/);
  });

  test("reads a footer alone, as a shop's own G-code's tail gives it: Windows line ends, one value per extruder", () => {
    const tail = [
      'G1 X1 Y1 E5',
      '; filament used [mm] = 1200.50, 47.25',
      '; filament used [g] = 3.58, 0.14',
      '; total filament used [g] = 3.72',
      '; estimated printing time (normal mode) = 1h 2m 3s',
      '; prusaslicer_config = begin',
    ].join('\r\n');
    assert.deepEqual(readGcodeFooter(tail), {
      filament_length_mm: 1247.75,
      filament_weight_g: 3.72,
      print_time_s: 3723,
    });
    assert.deepEqual(readGcodeFooter('G1 X1 E1\n; layer_height = 0.2\n'), {});
  });
});

describe('slicing with PrusaSlicer', () => {
  test("detects the server's slicer: 2.9 from the tree setup installed, else Debian's 2.5; and 2.5 by name", async () => {
    const launcher = join(slicerTreeDir(), 'prusa-slicer');
    const treeVersion = readFileSync('scripts/prusa-slicer.version', 'utf8').trim().replace(/\+.*/, '');
    const expected = process.env.PRUSA_SLICER_BIN
      ? (await detectSlicer(process.env.PRUSA_SLICER_BIN)).version
      : existsSync(launcher)
        ? treeVersion
        : '2.5.0';
    assert.equal((await detectSlicer()).version, expected);
    assert.equal((await detectSlicer()).binary, slicerChoice().binary);
    assert.deepEqual(await detectSlicer('prusa-slicer'), {
      name: 'PrusaSlicer',
      version: '2.5.0',
      binary: 'prusa-slicer',
    });
    await assert.rejects(
      detectSlicer('/nonexistent/prusa-slicer'),
      (e: unknown) => e instanceof SliceFailedError && e.code === 'slicer_unavailable',
    );
  });

  test("every pinned option is one the slicer knows, but for the other version's own; binary G-code is off", async () => {
    const known = async (binary: string) => {
      const r = spawnSync(binary, ['--help-fff'], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
      // " --after-layer-gcode ABCD, --layer-gcode ABCD   This custom code…": a name and its aliases.
      const heads = [...r.stdout.matchAll(/^ (--.*?)(?: {2,}|$)/gm)].map((m) => m[1]!);
      return new Set(heads.flatMap((h) => [...h.matchAll(/--([a-z0-9-]+)/g)].map((m) => m[1]!.replaceAll('-', '_'))));
    };
    const options = Object.keys(buildSliceConfig(DEFAULT_SETTINGS).options);
    for (const binary of [slicerChoice().binary, 'prusa-slicer']) {
      const { version } = await detectSlicer(binary);
      const names = await known(binary);
      const unknown = options.filter((k) => !names.has(k));
      assert.deepEqual(unknown.sort(), [...(version.startsWith('2.5.') ? ONLY_IN_2_9 : ONLY_IN_2_5)].sort(), version);
    }
    assert.equal(BASE_OPTIONS.binary_gcode, '0');
  });

  test('20 mm cube at 20 % infill: plausible statistics', async () => {
    const { print: stats, patternUsed } = await slice(cube);
    assert.ok(stats.filament_weight_g > 2 && stats.filament_weight_g < 8, `weight ${stats.filament_weight_g}`);
    assert.ok(stats.print_time_s > 300 && stats.print_time_s < 3600, `time ${stats.print_time_s}`);
    assert.ok(Math.abs(stats.layers - 100) <= 1, `layers ${stats.layers}`);
    assert.equal(stats.support_share, 0);
    assert.equal(stats.max_z_mm, 20);
    assert.ok(Math.abs(stats.filament_weight_g - stats.filament_volume_cm3 * 1.24) < 1e-9);
    assert.deepEqual(patternUsed, { requested: 'rectilinear', used: 'rectilinear', exact: true });
  });

  const more = (a: number, b: number, what: string) => assert.ok(b > a, `${what}: expected ${b} > ${a}`);
  const cases: [string, Overrides, Overrides, 'weight' | 'time' | 'length', 'up' | 'down'][] = [
    [
      'fill density up -> weight up',
      { printer: { fill_density: 10 } },
      { printer: { fill_density: 40 } },
      'weight',
      'up',
    ],
    ['perimeters up -> weight up', { printer: { perimeters: 2 } }, { printer: { perimeters: 4 } }, 'weight', 'up'],
    [
      'top solid layers up -> weight up',
      { printer: { top_solid_layers: 3 } },
      { printer: { top_solid_layers: 8 } },
      'weight',
      'up',
    ],
    [
      'bottom solid layers up -> weight up',
      { printer: { bottom_solid_layers: 3 } },
      { printer: { bottom_solid_layers: 8 } },
      'weight',
      'up',
    ],
    ['print speed up -> time down', { printer: { print_speed: 40 } }, { printer: { print_speed: 80 } }, 'time', 'down'],
    ['max print speed below print speed -> time up', {}, { printer: { max_print_speed: 30 } }, 'time', 'up'],
    ['first layer speed down -> time up', {}, { printer: { first_layer_speed: 5 } }, 'time', 'up'],
    ['travel speed down -> time up', {}, { printer: { travel_speed: 30 } }, 'time', 'up'],
    ['nozzle 0.6 -> time down', {}, { printer: { nozzle_diameter: 0.6 } }, 'time', 'down'],
    ['print acceleration down -> time up', {}, { printer: { acceleration_print: 300 } }, 'time', 'up'],
    ['travel acceleration down -> time up', {}, { printer: { acceleration_travel: 200 } }, 'time', 'up'],
    ['retraction acceleration down -> time up', {}, { printer: { acceleration_retraction: 100 } }, 'time', 'up'],
    ['print jerk down -> time up', {}, { printer: { jerk_print: 1 } }, 'time', 'up'],
    ['retraction speed down -> time up', {}, { material: { retraction_speed: 5 } }, 'time', 'up'],
    ['retraction distance up -> time up', {}, { material: { retraction_distance: 5 } }, 'time', 'up'],
    ['density up -> grams up', {}, { material: { density: 2 } }, 'weight', 'up'],
    ['filament diameter up -> length down', {}, { material: { diameter: 2.85 } }, 'length', 'down'],
  ];
  for (const [name, a, b, metric, dir] of cases) {
    test(name, async () => {
      const [x, y] = await Promise.all([slice(cube, a), slice(cube, b)]);
      const pick = (o: Sliced) =>
        metric === 'weight'
          ? o.print.filament_weight_g
          : metric === 'time'
            ? o.print.print_time_s
            : o.print.filament_length_mm;
      if (dir === 'up') more(pick(x), pick(y), name);
      else more(pick(y), pick(x), name);
    });
  }

  test('layer height up -> time down and fewer layers', async () => {
    const [fine, coarse] = await Promise.all([
      slice(cube, { printer: { layer_height: 0.1 } }),
      slice(cube, { printer: { layer_height: 0.25 } }),
    ]);
    more(coarse.stats.print_time_s, fine.stats.print_time_s, 'time');
    assert.ok(
      Math.abs(fine.stats.layers - 200) <= 1 && Math.abs(coarse.stats.layers - 80) <= 1,
      `${fine.stats.layers} ${coarse.stats.layers}`,
    );
  });

  test('infill pattern changes weight or time, and substitutes are reported', async () => {
    const [rect, gyroid, zigzag] = await Promise.all([
      slice(cube),
      slice(cube, { printer: { infill_pattern: 'gyroid' } }),
      slice(cube, { printer: { infill_pattern: 'zigzag' } }),
    ]);
    assert.ok(
      gyroid.stats.print_time_s !== rect.stats.print_time_s ||
        gyroid.stats.extruded_volume_mm3 !== rect.stats.extruded_volume_mm3,
    );
    assert.deepEqual(zigzag.patternUsed, { requested: 'zigzag', used: 'rectilinear', exact: false });
  });

  test('supports on an overhang: share > 0 and weight up; off: share 0; denser supports weigh more', async () => {
    const [off, on, dense] = await Promise.all([
      slice(tee),
      slice(tee, { printer: { support_material: true } }),
      slice(tee, { printer: { support_material: true, support_density: 40 } }),
    ]);
    assert.equal(off.stats.support_share, 0);
    assert.ok(on.stats.support_share > 0.05 && on.stats.support_share < 0.9, `share ${on.stats.support_share}`);
    more(off.print.filament_weight_g, on.print.filament_weight_g, 'weight');
    more(on.print.support_weight_g, dense.print.support_weight_g, 'support weight');
  });

  test('a part taller than bed_size_z, or wider than the bed, is refused as exceeding the build volume', async () => {
    for (const printer of [{ bed_size_z: 10 }, { bed_size_x: 15 }]) {
      await assert.rejects(
        slice(cube, { printer }),
        (e: unknown) => e instanceof SliceFailedError && e.code === 'exceeds_build_volume',
      );
    }
  });

  test('invalid settings are refused before PrusaSlicer runs, naming the field', async () => {
    await assert.rejects(
      sliceOnce({ meshPath: cube, settings: settingsWith({ printer: { layer_height: 0.6 } }) }),
      (e: unknown) =>
        e instanceof SettingsInvalidError && e.issues.some((i) => i.field === 'printer_config.layer_height'),
    );
  });

  test("a broken mesh fails with PrusaSlicer's message", async () => {
    const bad = join(dir, 'bad.obj');
    await writeFile(bad, 'v 0 0 0\nhello\n');
    await assert.rejects(
      sliceOnce({ meshPath: bad, settings: DEFAULT_SETTINGS }),
      (e: unknown) => e instanceof SliceFailedError && /Loading of a model file failed/.test(e.message),
    );
  });
});

describe('process control', () => {
  test('timeout kills PrusaSlicer and removes the temp folder', async () => {
    const root = await mkdtemp(join(dir, 'tmproot-'));
    // That the timeout returns without waiting for the slicer is shown with a slicer that never ends (below).
    await assert.rejects(
      sliceOnce({ meshPath: BENCHY, settings: DEFAULT_SETTINGS, timeoutMs: 300, tmpRoot: root }),
      SliceTimeoutError,
    );
    assert.deepEqual(await readdir(root), []);
  });

  test('timeout and abort kill the whole process group', async () => {
    const pids = join(dir, 'pids');
    const fake = join(dir, 'fake-slicer.sh');
    // Answers --help like PrusaSlicer, then starts a grandchild and hangs; had it been left to end by itself
    // (not killed), it would write the .ended file.
    const ended = `${pids}.ended`;
    await writeFile(
      fake,
      `#!/bin/sh\nif [ "$1" = --help ]; then echo PrusaSlicer-2.5.0+fake; exit 0; fi\nsleep 60 & echo $$ $! > ${pids}\nwait\necho > ${ended}\n`,
    );
    await chmod(fake, 0o755);
    const root = await mkdtemp(join(dir, 'tmproot-'));
    // Killed orphans may linger as zombies when PID 1 does not reap; a zombie is dead.
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    const readPids = () => readFileSync(pids, 'utf8').trim().split(' ').map(Number);
    await assert.rejects(
      sliceOnce({ meshPath: cube, settings: DEFAULT_SETTINGS, binary: fake, timeoutMs: 500, tmpRoot: root }),
      SliceTimeoutError,
    );
    assert.equal(existsSync(ended), false, 'the timeout did not wait for the slicer to end');
    for (const pid of readPids()) assert.equal(alive(pid), false, `pid ${pid} survived`);
    await rm(pids);
    const ctrl = new AbortController();
    const aborted = sliceOnce({
      meshPath: cube,
      settings: DEFAULT_SETTINGS,
      binary: fake,
      signal: ctrl.signal,
      tmpRoot: root,
    });
    // Abort once the slicer and its grandchild run (they wrote their pids).
    await until(
      'the slicer to start',
      30_000,
      () => (existsSync(pids) && readFileSync(pids, 'utf8').includes(' ')) || undefined,
    );
    ctrl.abort();
    await assert.rejects(aborted, SliceAbortedError);
    assert.equal(existsSync(ended), false, 'the abort did not wait for the slicer to end');
    for (const pid of readPids()) assert.equal(alive(pid), false, `pid ${pid} survived`);
    assert.deepEqual(await readdir(root), []);
  });

  test('pool: at most size slices run, a full queue throws PoolFullError, close kills', async () => {
    const pool = createSlicePool({ size: 1, maxQueue: 1, timeoutMs: 60_000 });
    const first = pool.slice({ meshPath: BENCHY, settings: DEFAULT_SETTINGS });
    const second = pool.slice({ meshPath: cube, settings: DEFAULT_SETTINGS });
    await assert.rejects(
      pool.slice({ meshPath: cube, settings: DEFAULT_SETTINGS }),
      (e: unknown) => e instanceof PoolFullError && e.retryAfterSeconds >= 1,
    );
    assert.deepEqual([pool.stats().running + pool.stats().queued, pool.stats().queued], [2, 1]);
    // Close does not wait for the running Benchy slice: it is aborted, not completed.
    const outcomes = [assert.rejects(first, SliceAbortedError), assert.rejects(second, PoolClosedError)];
    await pool.close();
    await Promise.all(outcomes);
    await assert.rejects(pool.slice({ meshPath: cube, settings: DEFAULT_SETTINGS }), PoolClosedError);
  });

  test('pool: a short slice starts in the short lane while a long one holds the slot; the long one is paused (SIGSTOP) while it runs and resumed after', async () => {
    const pool = createSlicePool({ size: 1, shortLane: 1, maxQueue: 1, timeoutMs: 600_000 });
    const ctrl = new AbortController();
    const long = pool.slice({ meshPath: BENCHY, settings: DEFAULT_SETTINGS, niceness: 10 }, ctrl.signal);
    const stopped = assert.rejects(long, SliceAbortedError);
    const [longPid] = await until('the long slice to run', 60_000, () => someSlicers());
    // The only normal slot is taken: without the lane the short slice would wait for Benchy.
    const short = pool.slice({
      meshPath: cube,
      settings: DEFAULT_SETTINGS,
      lane: 'short',
      short: { cpuMs: 600_000, niceness: 10 },
    });
    // The short slicer is held the moment it runs, so it is certainly running while the long one is looked at.
    const shortPid = await until('the short slice to run', 60_000, () =>
      runningSlicers().find((pid) => pid !== longPid),
    );
    const held = holdSlicers([shortPid]);
    // Paused by the pool: stopped, and counted (a long slice is paused at most half its life, so the pool may let
    // it run again for a while if the short one is held long: the state is looked at as a whole, once).
    const pausedByPool = () =>
      stateOf(longPid!) === 'T' && pool.stats().paused === 1 && pool.stats().shortRunning === 1 ? true : undefined;
    await until('the long slice to be paused by the pool', 60_000, pausedByPool);
    held.release();
    await short;
    await until('the long slice to be resumed', 60_000, () => (stateOf(longPid!) !== 'T' ? true : undefined));
    assert.equal(pool.stats().paused, 0);
    assert.ok(pool.stats().pauses >= 1);
    ctrl.abort();
    await stopped;
    await pool.close();
  });

  test('pool: a short slice past its allowance is stopped in the short lane (ShortLaneOutgrownError) and runs on, long, in a normal slot', async () => {
    const pool = createSlicePool({ size: 1, shortLane: 1, timeoutMs: 600_000 });
    const short = { cpuMs: 1, niceness: 10 };
    // Each slicer is held once it has used some CPU time since it was first seen, so it is past its allowance and
    // still running, however fast the machine slices the cube. Counted from when it was seen, not from its start:
    // the pool counts from its spawn, and on a loaded host the launcher may have used a tick before the pool
    // looked; held at that tick, it would never be past its allowance in the pool's eyes.
    const seen = new Set<number>();
    // `gone`: the slice ended meanwhile (the pool found it outgrown first, on a quiet host): nothing to hold.
    const holdOnceBusy = async (gone = () => false) => {
      const pid = await until('the slicer to run', 60_000, () =>
        gone() ? null : runningSlicers().find((p) => !seen.has(p)),
      );
      if (pid === null) return undefined;
      seen.add(pid);
      const first = cpuTicksOf(pid);
      // Two ticks: the pool's own first reading may come a tick after this one.
      await until('the slicer to use the CPU', 60_000, () =>
        gone() || cpuTicksOf(pid) >= first + 2 ? true : undefined,
      );
      return { pid, held: holdSlicers([pid]) };
    };
    const inLane = pool.slice({ meshPath: cube, settings: DEFAULT_SETTINGS, lane: 'short', short });
    // Awaited from the start: on a quiet host the pool may find it outgrown before the slicer is seen busy.
    let refused = false;
    const laneRefused = assert.rejects(inLane, ShortLaneOutgrownError).finally(() => {
      refused = true;
    });
    const lane = await holdOnceBusy(() => refused);
    await laneRefused;
    const inSlot = pool.slice({ meshPath: cube, settings: DEFAULT_SETTINGS, short });
    const slot = (await holdOnceBusy())!;
    await until('the slice to outgrow its allowance', 60_000, () => (pool.stats().outgrown === 2 ? true : undefined));
    assert.equal(nicenessOf(slot.pid), 10, 'reniced as a long slice');
    slot.held.release();
    const out = await inSlot;
    assert.ok(out.stats.extruded_volume_mm3 > 0);
    lane?.held.release();
    await pool.close();
  });

  test('pool runs queued work in turn and never exceeds its size', async () => {
    const pool = createSlicePool({ size: 2, maxQueue: 10 });
    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, pool.stats().running);
    }, 5);
    const outs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        pool.slice({ meshPath: cube, settings: settingsWith({ printer: { fill_density: 10 + i } }) }),
      ),
    );
    clearInterval(timer);
    assert.equal(outs.length, 5);
    assert.ok(peak <= 2 && peak >= 1, `peak ${peak}`);
    assert.equal(pool.stats().completed, 5);
    await pool.close();
  });
});
