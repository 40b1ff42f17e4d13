// `npm run bench -- estimate`: the instant estimator (shared/estimate) against real PrusaSlicer slices with the same
// settings. The calibration is fitted on the training models only and the figures are reported on held-out models
// (bench/estimate-corpus.ts says which); the training split's in-sample figures are printed beside them for
// contrast, never as the result. Also: the estimator's latency on 3DBenchy, median of several runs.
// Run alone: node --import tsx bench/estimate.ts
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  DEFAULT_CALIBRATION,
  extractFeatures,
  fitCalibration,
  predict,
  type Calibration,
  type CalibrationSample,
} from '../shared/estimate/index.ts';
import { detectSlicer } from '../server/slicer/engine.ts';
import {
  benchModels,
  MODELS_DIR,
  pairId,
  realSlices,
  VARIANTS,
  type BenchModel,
  type RealSlice,
  type Variant,
} from './estimate-corpus.ts';

interface Pair {
  model: BenchModel;
  variant: Variant;
  real: RealSlice;
}

interface Row {
  model: string;
  variant: string;
  real_g: number;
  estimate_g: number;
  weight_error: number;
  real_s: number;
  estimate_s: number;
  time_error: number;
  weight_inside: boolean;
  time_inside: boolean;
}

const median = (xs: number[]) => quantileOf(xs, 0.5);
function quantileOf(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const pos = (s.length - 1) * q;
  return s[Math.floor(pos)]! + (s[Math.ceil(pos)]! - s[Math.floor(pos)]!) * (pos - Math.floor(pos));
}
const pct = (x: number) => Math.round(x * 1000) / 10;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** Real slices of every pair that sliced, and the pairs that did not. */
export async function collectPairs(models: BenchModel[]): Promise<{ pairs: Pair[]; failed: string[] }> {
  const slices = await realSlices(models, VARIANTS, Math.min(2, availableParallelism()));
  const pairs: Pair[] = [];
  const failed: string[] = [];
  for (const model of models) {
    for (const variant of VARIANTS) {
      const real = slices.get(pairId(model, variant));
      if (!real && process.env.SQ_ESTIMATE_CACHE_ONLY === '1') continue;
      if (!real || 'error' in real)
        failed.push(`${pairId(model, variant)}: ${real && 'error' in real ? real.error : '?'}`);
      else pairs.push({ model, variant, real });
    }
  }
  return { pairs, failed };
}

export function samplesOf(pairs: Pair[]): CalibrationSample[] {
  return pairs.map(({ model, variant, real }) => ({
    features: extractFeatures(model.mesh, variant.settings),
    volume_mm3: real.volume_mm3,
    time_s: real.time_s,
    group: model.name,
  }));
}

function rowsOf(pairs: Pair[], calibration: Calibration): Row[] {
  return pairs.map(({ model, variant, real }) => {
    const e = predict(extractFeatures(model.mesh, variant.settings), variant.settings, calibration);
    const realG = (real.volume_mm3 / 1000) * variant.settings.material.density;
    return {
      model: model.name,
      variant: variant.name,
      real_g: round(realG, 3),
      estimate_g: round(e.filament_weight_g, 3),
      weight_error: Math.abs(e.filament_weight_g - realG) / realG,
      real_s: real.time_s,
      estimate_s: Math.round(e.estimated_time_seconds),
      time_error: Math.abs(e.estimated_time_seconds - real.time_s) / real.time_s,
      weight_inside: realG >= e.weight_range[0] && realG <= e.weight_range[1],
      time_inside: real.time_s >= e.time_range[0] && real.time_s <= e.time_range[1],
    };
  });
}

function summary(rows: Row[]) {
  return {
    slices: rows.length,
    weight_error_median_pct: pct(median(rows.map((r) => r.weight_error))),
    weight_error_p90_pct: pct(
      quantileOf(
        rows.map((r) => r.weight_error),
        0.9,
      ),
    ),
    time_error_median_pct: pct(median(rows.map((r) => r.time_error))),
    time_error_p90_pct: pct(
      quantileOf(
        rows.map((r) => r.time_error),
        0.9,
      ),
    ),
    weight_inside_range_pct: pct(rows.filter((r) => r.weight_inside).length / rows.length),
    time_inside_range_pct: pct(rows.filter((r) => r.time_inside).length / rows.length),
    both_inside_range_pct: pct(rows.filter((r) => r.weight_inside && r.time_inside).length / rows.length),
  };
}

/**
 * Estimator latency (features + prediction) on 3DBenchy: the first call in this process (the JIT still cold) and
 * the median of `runs` after `warmups` more, as a server that has estimated before sees it.
 */
function latency(model: BenchModel, calibration: Calibration, runs: number, warmups = 3) {
  const s = VARIANTS[0]!.settings;
  const cpuMs: number[] = [];
  const once = () => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    predict(extractFeatures(model.mesh, s), s, calibration);
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    return wall;
  };
  const first = once();
  for (let i = 0; i < warmups; i++) once();
  cpuMs.length = 0;
  const ms = Array.from({ length: runs }, once);
  return {
    model: model.name,
    triangles: model.mesh.indices.length / 3,
    first_call_ms: round(first, 1),
    runs,
    median_ms: round(median(ms), 1),
    min_ms: round(Math.min(...ms), 1),
    max_ms: round(Math.max(...ms), 1),
    /** CPU time of the process over the same runs (includes the garbage collector's threads). */
    median_cpu_ms: round(median(cpuMs), 1),
    /** The machine is shared: its 1-minute load average while the latency was measured. */
    load_average: round(loadavg()[0]!, 2),
  };
}

const coefficientGap = (a: Calibration, b: Calibration) =>
  Math.max(
    ...(['volume', 'time'] as const).flatMap((k) =>
      Object.entries(a[k].coefficients).map(([t, v]) => Math.abs(v - (b[k].coefficients as any)[t])),
    ),
  );

function markdown(byVariant: Record<string, ReturnType<typeof summary>>): string {
  const head =
    '| settings | slices | weight error median / p90 | time error median / p90 | real inside range (weight, time, both) |';
  const lines = [head, '|---|---|---|---|---|'];
  for (const [name, s] of Object.entries(byVariant)) {
    lines.push(
      `| ${name} | ${s.slices} | ${s.weight_error_median_pct} % / ${s.weight_error_p90_pct} % | ` +
        `${s.time_error_median_pct} % / ${s.time_error_p90_pct} % | ` +
        `${s.weight_inside_range_pct} %, ${s.time_inside_range_pct} %, ${s.both_inside_range_pct} % |`,
    );
  }
  return lines.join('\n');
}

export async function benchEstimate(modelsDir = MODELS_DIR) {
  const started = performance.now();
  const withFinal = process.env.SQ_ESTIMATE_FINAL === '1';
  const all = benchModels(modelsDir);
  if (process.env.SQ_ESTIMATE_SLICE_ONLY === '1') {
    // Fills the slice cache (every split) without computing a single estimate: the final set stays unseen.
    const { failed } = await collectPairs(all);
    return { sliced_only: true, failed_slices: failed };
  }
  // The final held-out set is read only on request (docs/estimate.md "How honest is the split").
  const models = all.filter((m) => withFinal || m.split !== 'final');
  const { pairs, failed } = await collectPairs(models);
  const train = pairs.filter((p) => p.model.split === 'train');
  const heldOut = pairs.filter((p) => p.model.split === 'dev');
  const calibration = fitCalibration(samplesOf(train));
  const heldRows = rowsOf(heldOut, calibration);
  const byVariant: Record<string, ReturnType<typeof summary>> = { 'all held-out': summary(heldRows) };
  for (const v of VARIANTS) byVariant[v.name] = summary(heldRows.filter((r) => r.variant === v.name));
  byVariant['held-out corpus only'] = summary(
    heldRows.filter((r) => models.find((m) => m.name === r.model)?.origin === 'corpus'),
  );
  byVariant['held-out procedural only'] = summary(
    heldRows.filter((r) => models.find((m) => m.name === r.model)?.origin === 'procedural'),
  );
  const benchy = models.find((m) => m.name.includes('3DBenchy'))!;
  const table = markdown(byVariant);
  console.error(`\nestimate: held-out models, calibration fitted on the training models only\n${table}\n`);
  const perModel = [...new Set(heldRows.map((r) => r.model))].map((name) => {
    const rows = heldRows.filter((r) => r.model === name);
    return { model: name, ...summary(rows) };
  });
  return {
    slicer: (await detectSlicer()).version,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
    split: {
      train: [...new Set(train.map((p) => p.model.name))],
      held_out: [...new Set(heldOut.map((p) => `${p.model.name} (${p.model.origin})`))],
      variants: VARIANTS.map((v) => v.name),
    },
    calibration,
    shipped_calibration_max_coefficient_gap: round(coefficientGap(calibration, DEFAULT_CALIBRATION), 6),
    held_out: byVariant,
    held_out_table: table,
    train_in_sample: summary(rowsOf(train, calibration)),
    per_held_out_model: perModel,
    worst_held_out: [...heldRows]
      .sort((a, b) => b.weight_error + b.time_error - (a.weight_error + a.time_error))
      .slice(0, 10)
      .map((r) => ({ ...r, weight_error: pct(r.weight_error), time_error: pct(r.time_error) })),
    latency_3dbenchy: process.env.SQ_ESTIMATE_NO_LATENCY === '1' ? null : latency(benchy, calibration, 15),
    failed_slices: failed,
    wall_s: round((performance.now() - started) / 1000, 1),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchEstimate(join(process.cwd(), 'test', 'fixtures', 'models')), null, 2));
}
