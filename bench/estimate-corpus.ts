// The estimator benchmark's models, settings and real slices. Models are split once and for all:
// - 'train': the calibration is fitted on these (part of test/fixtures/models);
// - 'dev': the former held-out set (3DBenchy, the rest of the old corpus list, procedural shapes). It was looked at
//   while the estimator was developed, so it is a development set now, not a held-out one;
// - 'final': frozen before the polygon estimator was written, never used for fitting or for choosing terms, and
//   evaluated only when SQ_ESTIMATE_FINAL=1 is set (docs/estimate.md "How honest is the split").
// Real slices are PrusaSlicer's, through the engine the server uses, cached in the temp folder by mesh, config and
// slicer version.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { buildSliceConfig } from '../server/slicer/config.ts';
import { detectSlicer, sliceOnce } from '../server/slicer/engine.ts';
import { detectFormat, type Mesh, parseModel, writeCanonicalObj } from '../shared/model/index.ts';
import { DEFAULT_SETTINGS, type ResolvedSettings } from '../shared/settings.ts';
import { BRIDGE_OBJ, T_SHAPE_OBJ, WEDGE_OBJ } from '../test/helpers/meshes.ts';
import {
  boxObj,
  hollowBoxObj,
  prismZObj,
  pyramidObj,
  regularPolygon,
  torusObj,
  tubeObj,
} from '../test/helpers/solids.ts';

export interface BenchModel {
  name: string;
  split: 'train' | 'dev' | 'final';
  origin: 'corpus' | 'procedural';
  mesh: Mesh;
}

export interface Variant {
  name: string;
  settings: ResolvedSettings;
}

function withPrinter(changes: Partial<ResolvedSettings['printer']>): ResolvedSettings {
  const s = structuredClone(DEFAULT_SETTINGS);
  Object.assign(s.printer, changes);
  return s;
}

/** The default profile and one change each, as issue 16 asks. */
export const VARIANTS: Variant[] = [
  { name: 'default', settings: DEFAULT_SETTINGS },
  { name: 'infill 10 %', settings: withPrinter({ fill_density: 10 }) },
  { name: 'infill 40 %', settings: withPrinter({ fill_density: 40 }) },
  { name: '3 perimeters', settings: withPrinter({ perimeters: 3 }) },
  { name: '0.3 mm layers', settings: withPrinter({ layer_height: 0.3 }) },
  { name: 'supports on', settings: withPrinter({ support_material: true }) },
];

/** Corpus files (path under test/fixtures/models, scale to printable millimetres) and their split. */
const CORPUS: [file: string, scale: number, split: BenchModel['split']][] = [
  ['stl/fandisk.stl', 8, 'train'],
  ['stl/heartgears.stl', 1, 'train'],
  ['obj/cow.obj', 5, 'train'],
  ['obj/spot.obj', 30, 'train'],
  ['stl/cube20_ascii.stl', 1, 'train'],
  ['stl/two_cubes_10mm.stl', 1, 'train'],
  ['3mf/conformance/examples/box.3mf', 1, 'train'],
  ['3mf/conformance/examples/cylinder.3mf', 1, 'train'],
  ['3mf/conformance/examples/sphere.3mf', 1, 'train'],
  ['3mf/conformance/examples/torus.3mf', 1, 'train'],
  ['stl/3DBenchy.stl', 1, 'dev'],
  ['3mf/conformance/examples/sphere_logo.3mf', 1, 'dev'],
  ['stl/tiny_0.5mm_cube.stl', 4, 'dev'],
  // The final held-out set's corpus models: none was read by the estimator's benchmark before.
  ['3mf/conformance/examples/dodeca_chain_loop.3mf', 0.5, 'final'],
  ['3mf/conformance/examples/rhombicuboctahedron_color.3mf', 0.4, 'final'],
  ['3mf/conformance/examples/torus_proc.3mf', 1, 'final'],
  ['3mf/conformance/examples/multiple_cylinders.3mf', 1, 'final'],
  ['3mf/conformance/examples/cube_gears.3mf', 0.5, 'final'],
];

const square = (a: number): [number, number][] => [
  [0, 0],
  [a, 0],
  [a, a],
  [0, a],
];

/** Bodies as one OBJ (each body's face indices shifted past the vertices before it). */
function joinObj(...bodies: string[]): string {
  const lines: string[] = [];
  let offset = 0;
  for (const body of bodies) {
    const rows = body.split('\n').filter(Boolean);
    for (const row of rows) {
      if (row.startsWith('f ')) {
        lines.push(
          `f ${row
            .slice(2)
            .split(' ')
            .map((i) => Number(i) + offset)
            .join(' ')}`,
        );
      } else lines.push(row);
    }
    offset += rows.filter((r) => r.startsWith('v ')).length;
  }
  return `${lines.join('\n')}\n`;
}

/** Procedural shapes. 'dev' ones were looked at during earlier development; 'final' ones are frozen, unseen. */
const PROCEDURAL: [name: string, obj: string, split: BenchModel['split']][] = [
  ['T-shape (overhang)', T_SHAPE_OBJ, 'dev'],
  ['bridge (two overhangs)', BRIDGE_OBJ, 'dev'],
  ['wedge (60° overhang)', WEDGE_OBJ, 'dev'],
  ['tube Ø40/Ø36 × 30 (thin wall)', tubeObj(96, 20, 18, 30), 'dev'],
  ['cone Ø40 × 40', pyramidObj(regularPolygon(96, 20), 40), 'dev'],
  ['hollow box 30 with 20 mm cavity', hollowBoxObj(30, 30, 20, 5), 'dev'],
  ['pin Ø4 × 40 (tiny section)', prismZObj(regularPolygon(32, 2), 0, 40), 'dev'],
  [
    'plate 80 × 60 × 2',
    prismZObj(
      [
        [0, 0],
        [80, 0],
        [80, 60],
        [0, 60],
      ],
      0,
      2,
    ),
    'dev',
  ],
  ['block 50 × 50 × 50', prismZObj(square(50), 0, 50), 'dev'],
  ['hexagonal prism 30 × 15', prismZObj(regularPolygon(6, 15), 0, 15), 'dev'],
  // The final held-out set's shapes, parameters fixed before the polygon estimator was written.
  ['torus R18 r5 (final)', torusObj(18, 5), 'final'],
  ['shallow cone Ø60 × 8 (final)', pyramidObj(regularPolygon(96, 30), 8), 'final'],
  ['square pyramid 40 × 30 (final)', pyramidObj(square(40), 30, [20, 20]), 'final'],
  ['fin 40 × 1.2 × 20 (final)', boxObj(0, 0, 0, 40, 1.2, 20), 'final'],
  ['tube Ø24/Ø18 × 25 (final)', tubeObj(64, 12, 9, 25), 'final'],
  ['stepped tower 30/15 (final)', joinObj(boxObj(0, 0, 0, 30, 30, 10), boxObj(7.5, 7.5, 10, 22.5, 22.5, 30)), 'final'],
  [
    'shelf over a base (final)',
    joinObj(boxObj(0, 0, 0, 40, 20, 5), boxObj(0, 0, 5, 10, 20, 25), boxObj(0, 0, 25, 40, 20, 30)),
    'final',
  ],
];

function scaled(mesh: Mesh, factor: number): Mesh {
  if (factor === 1) return mesh;
  return { positions: mesh.positions.map((v) => v * factor), indices: mesh.indices };
}

function load(name: string, bytes: Uint8Array): Mesh {
  return parseModel(bytes, detectFormat(name, bytes) ?? undefined).mesh;
}

export function benchModels(modelsDir: string): BenchModel[] {
  const corpus = CORPUS.map(([file, scale, split]): BenchModel => {
    const mesh = scaled(load(file, new Uint8Array(readFileSync(join(modelsDir, file)))), scale);
    return { name: scale === 1 ? file : `${file} ×${scale}`, split, origin: 'corpus', mesh };
  });
  const procedural = PROCEDURAL.map(
    ([name, obj, split]): BenchModel => ({
      name,
      split,
      origin: 'procedural',
      mesh: load('shape.obj', new TextEncoder().encode(obj)),
    }),
  );
  return [...corpus, ...procedural];
}

export interface RealSlice {
  volume_mm3: number;
  time_s: number;
  support_share: number;
}

const CACHE_DIR = join(tmpdir(), 'slicequote-estimate-bench');
const CACHE_FILE = join(CACHE_DIR, 'slices.json');

function readCache(): Record<string, RealSlice | { error: string }> {
  try {
    return JSON.parse(readFileSync(CACHE_FILE, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Real slices of every (model, variant) pair, `concurrency` at a time, from the cache where present. A slice that
 * fails is recorded with its error (and skipped by the caller).
 */
export async function realSlices(
  models: BenchModel[],
  variants: Variant[],
  concurrency: number,
): Promise<Map<string, RealSlice | { error: string }>> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const slicer = await detectSlicer();
  const cache = readCache();
  const out = new Map<string, RealSlice | { error: string }>();
  const jobs: (() => Promise<void>)[] = [];
  for (const model of models) {
    const obj = writeCanonicalObj(model.mesh);
    const meshHash = createHash('sha256').update(obj).digest('hex').slice(0, 16);
    const meshPath = join(CACHE_DIR, `${meshHash}.obj`);
    if (!existsSync(meshPath)) writeFileSync(meshPath, obj);
    for (const variant of variants) {
      const ini = buildSliceConfig(variant.settings).ini;
      const key = `${slicer.version}:${meshHash}:${createHash('sha256').update(ini).digest('hex').slice(0, 16)}`;
      const id = pairId(model, variant);
      if (cache[key]) {
        out.set(id, cache[key]);
        continue;
      }
      // SQ_ESTIMATE_CACHE_ONLY=1: report on what is cached (another run may be slicing the rest).
      if (process.env.SQ_ESTIMATE_CACHE_ONLY === '1') continue;
      jobs.push(async () => {
        try {
          const r = await sliceOnce({ meshPath, settings: variant.settings, timeoutMs: 300_000 });
          cache[key] = {
            volume_mm3: r.stats.extruded_volume_mm3,
            time_s: r.stats.print_time_s,
            support_share: r.stats.support_share,
          };
        } catch (e) {
          cache[key] = { error: (e as Error).message.slice(0, 200) };
        }
        out.set(id, cache[key]);
        writeFileSync(CACHE_FILE, JSON.stringify(cache));
      });
    }
  }
  if (jobs.length) console.error(`estimate bench: ${jobs.length} real slices to run (cache: ${CACHE_FILE})`);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]!();
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return out;
}

export const pairId = (model: BenchModel, variant: Variant) => `${model.name} | ${variant.name}`;

export const MODELS_DIR = path.resolve('test', 'fixtures', 'models');
