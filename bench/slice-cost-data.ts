// Real slice durations for the slice cost model (server/slicer/cost.ts): every (model, settings) pair is sliced by
// the engine the server uses and timed, then stored with the model's measurements. The models are split once and
// for all: the coefficients are fitted on TRAIN and the error is reported on HELD_OUT (bench/slice-cost.ts).

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSliceConfig } from '../server/slicer/config.ts';
import { type CostInputs, costInputsOf } from '../server/slicer/cost.ts';
import { detectFormat, type Mesh, measure, parseModel, writeCanonicalObj } from '../shared/model/index.ts';
import { DEFAULT_SETTINGS, type ResolvedSettings } from '../shared/settings.ts';
import { prismZObj, regularPolygon, sphereObj, tetraCloudObj, torusGridObj, tubeObj } from '../test/helpers/solids.ts';

export interface CostSample {
  model: string;
  variant: string;
  split: 'train' | 'held_out';
  inputs: CostInputs;
  seconds: number | null;
  error?: string;
}

const FILES: [file: string, scale: number, split: CostSample['split']][] = [
  ['stl/fandisk.stl', 8, 'train'],
  ['stl/heartgears.stl', 1, 'train'],
  ['obj/cow.obj', 5, 'train'],
  ['3mf/conformance/examples/torus.3mf', 1, 'train'],
  ['stl/3DBenchy.stl', 1, 'held_out'],
  ['obj/spot.obj', 30, 'held_out'],
  ['3mf/conformance/examples/sphere_logo.3mf', 1, 'held_out'],
];

const PROCEDURAL: [name: string, obj: () => string, split: CostSample['split']][] = [
  ['tetra cloud 2,000 in 60 mm', () => tetraCloudObj(2_000, 60, 1.5, 7), 'train'],
  ['tetra cloud 4,000 in 70 mm', () => tetraCloudObj(4_000, 70, 1.5, 11), 'train'],
  ['tetra cloud 3,000 in 50 mm', () => tetraCloudObj(3_000, 50, 1.2, 3), 'held_out'],
  ['torus grid 6 × 6', () => torusGridObj(6, 6, 2, 2), 'train'],
  ['torus grid 8 × 8', () => torusGridObj(8, 5, 1.5, 1), 'held_out'],
  ['thick torus grid 4 × 4', () => torusGridObj(4, 6, 3, 2, 48, 96), 'train'],
  ['sphere Ø50, 300,000 triangles', () => sphereObj(25, 388, 388), 'train'],
  ['sphere Ø60 fine', () => sphereObj(30, 96, 192), 'train'],
  ['tube Ø40 × 60', () => tubeObj(96, 20, 18, 60), 'held_out'],
  ['block 40 × 40 × 40', () => prismZObj(regularPolygon(4, 28), 0, 40), 'train'],
  ['cylinder Ø80 × 100', () => prismZObj(regularPolygon(256, 40), 0, 100), 'held_out'],
];

const variant = (name: string, printer: Partial<ResolvedSettings['printer']>) => {
  const settings = structuredClone(DEFAULT_SETTINGS);
  Object.assign(settings.printer, printer);
  return { name, settings };
};

export const COST_VARIANTS = [
  variant('default', {}),
  variant('fine 0.1 mm, 50 %', { layer_height: 0.1, fill_density: 50 }),
  variant('draft 0.3 mm, 10 %', { layer_height: 0.3, fill_density: 10 }),
  variant('supports', { support_material: true }),
];

const DIR = join(tmpdir(), 'slicequote-cost-bench');

/**
 * The CPU seconds (user and system, every thread) the bare PrusaSlicer CLI spends on one slice, read by the
 * shell's `times`: unlike wall time, it barely moves when the machine's other work shares the cores.
 */
function slicerCpuSeconds(meshPath: string, ini: string, timeoutMs: number): Promise<number> {
  const dir = mkdtempSync(join(DIR, 'run-'));
  writeFileSync(join(dir, 'config.ini'), ini);
  const script =
    'prusa-slicer --loglevel 1 --datadir datadir --export-gcode --load config.ini --output out.gcode "$1" >/dev/null 2>&1; s=$?; times; exit $s';
  return new Promise<number>((resolve, reject) => {
    execFile(
      'bash',
      ['-c', script, 'slice', meshPath],
      { cwd: dir, timeout: timeoutMs, env: { PATH: process.env.PATH, HOME: dir, LC_ALL: 'C' } },
      (err, stdout) => {
        rmSync(dir, { recursive: true, force: true });
        if (err) return reject(new Error(`slicer failed (${err.code ?? err.signal})`));
        const children = stdout.trim().split('\n')[1] ?? '';
        const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
        if (secs.length !== 2) return reject(new Error(`unexpected times output: ${stdout}`));
        resolve(secs[0]! + secs[1]!);
      },
    );
  });
}

function models(modelsDir: string) {
  const load = (name: string, bytes: Uint8Array) => parseModel(bytes, detectFormat(name, bytes) ?? undefined).mesh;
  const scaled = (m: Mesh, k: number): Mesh =>
    k === 1 ? m : { positions: m.positions.map((v) => v * k), indices: m.indices };
  return [
    ...FILES.map(([file, scale, split]) => ({
      name: scale === 1 ? file : `${file} ×${scale}`,
      split,
      mesh: scaled(load(file, new Uint8Array(readFileSync(join(modelsDir, file)))), scale),
    })),
    ...PROCEDURAL.map(([name, obj, split]) => ({
      name,
      split,
      mesh: load('shape.obj', new TextEncoder().encode(obj())),
    })),
  ];
}

/** Slices every pair once (one at a time, so the durations are not shared cores); cached by mesh and settings. */
export async function costSamples(modelsDir: string, log = console.error): Promise<CostSample[]> {
  mkdirSync(DIR, { recursive: true });
  const cacheFile = join(DIR, 'cpu-samples.json');
  const cache: Record<string, CostSample> = existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : {};
  const out: CostSample[] = [];
  for (const m of models(modelsDir)) {
    const obj = writeCanonicalObj(m.mesh);
    const hash = createHash('sha256').update(obj).digest('hex').slice(0, 16);
    const meshPath = join(DIR, `${hash}.obj`);
    if (!existsSync(meshPath)) writeFileSync(meshPath, obj);
    const measured = measure(m.mesh);
    for (const v of COST_VARIANTS) {
      const key = `${hash}:${v.name}`;
      if (!cache[key]) {
        const inputs = costInputsOf(measured, measured.bbox.size[2], v.settings.printer);
        const sample: CostSample = { model: m.name, variant: v.name, split: m.split, inputs, seconds: null };
        try {
          sample.seconds = await slicerCpuSeconds(meshPath, buildSliceConfig(v.settings).ini, 600_000);
        } catch (e) {
          sample.error = (e as Error).message.slice(0, 200);
        }
        log(`slice cost: ${m.name} | ${v.name}: ${sample.seconds?.toFixed(2) ?? sample.error} s`);
        cache[key] = sample;
        writeFileSync(cacheFile, JSON.stringify(cache));
      }
      // The inputs are measured afresh (the cache keeps the slicer's seconds), so a new input needs no new slices.
      const inputs = costInputsOf(measured, measured.bbox.size[2], v.settings.printer);
      out.push({ ...cache[key]!, split: m.split, model: m.name, inputs });
    }
  }
  return out;
}
