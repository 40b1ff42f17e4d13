// `npm run bench -- estimate`: the instant estimator (shared/estimate) against real PrusaSlicer slices with the same
// settings. The calibration is fitted on the training models only and the figures are reported on held-out models
// (bench/estimate-corpus.ts says which); the training split's in-sample figures are printed beside them for
// contrast, never as the result. Also: the features' CPU time per pair, how far the sampled layers' estimates stray
// from every layer's, and the estimator's latency on 3DBenchy (sampled and every layer), median of several runs.
// Run alone: node --import tsx bench/estimate.ts
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { detectSlicer } from '../server/slicer/engine.ts';
import {
  type Calibration,
  type CalibrationSample,
  DEFAULT_CALIBRATION,
  extractFeatures,
  type FeatureOptions,
  type Features,
  fitCalibration,
  predict,
} from '../shared/estimate/index.ts';
import { benchCoarse, coarseLatency, stagesTable } from './estimate-coarse.ts';
import { type BenchModel, benchModels, MODELS_DIR, pairId, realSlices, VARIANTS } from './estimate-corpus.ts';
import { median, type Pair, pct, quantileOf, type Row, round, rowsFrom, summary } from './estimate-rows.ts';

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
  const estimates = pairs.map(({ model, variant }) =>
    predict(extractFeatures(model.mesh, variant.settings), variant.settings, calibration),
  );
  return rowsFrom(pairs, estimates, calibration);
}

/**
 * Estimator latency (features + prediction) on 3DBenchy: the first call in this process (the JIT still cold) and
 * the median of `runs` after `warmups` more, as a server that has estimated before sees it.
 */
function latency(model: BenchModel, calibration: Calibration, runs: number, warmups = 3, options: FeatureOptions = {}) {
  const s = VARIANTS[0]!.settings;
  const cpuMs: number[] = [];
  const once = () => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    predict(extractFeatures(model.mesh, s, options), s, calibration);
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

/**
 * CPU time of extractFeatures on each pair, one call each, in this process (the JIT warmed by the fit): median, 90th
 * percentile and total. CPU time, not wall time: the machine is shared, and the load is noted beside it.
 */
function featureCost(pairs: Pair[]) {
  const cpuMs = pairs.map(({ model, variant }) => {
    const cpu0 = process.cpuUsage();
    extractFeatures(model.mesh, variant.settings);
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / 1000;
  });
  return {
    pairs: pairs.length,
    median_cpu_ms: round(median(cpuMs), 1),
    p90_cpu_ms: round(quantileOf(cpuMs, 0.9), 1),
    total_cpu_ms: round(
      cpuMs.reduce((a, b) => a + b, 0),
      0,
    ),
    load_average: round(loadavg()[0]!, 2),
  };
}

/**
 * How far the estimates from the sampled layers stray from those computed on every layer (extractFeatures's
 * everyLayer), both predicted with `calibration`: |sampled / every layer − 1| for weight and time over the pairs,
 * and both ways' CPU time in all (one call each).
 */
function samplingDeviation(pairs: Pair[], calibration: Calibration) {
  const weight: number[] = [];
  const time: number[] = [];
  const cpu = { sampled: 0, every: 0 };
  const timed = (way: 'sampled' | 'every', f: () => Features) => {
    const cpu0 = process.cpuUsage();
    const features = f();
    const used = process.cpuUsage(cpu0);
    cpu[way] += (used.user + used.system) / 1000;
    return features;
  };
  for (const { model, variant } of pairs) {
    const s = variant.settings;
    const sampled = predict(
      timed('sampled', () => extractFeatures(model.mesh, s)),
      s,
      calibration,
    );
    const every = predict(
      timed('every', () => extractFeatures(model.mesh, s, { everyLayer: true })),
      s,
      calibration,
    );
    weight.push(Math.abs(sampled.filament_volume_mm3 / every.filament_volume_mm3 - 1));
    time.push(Math.abs(sampled.estimated_time_seconds / every.estimated_time_seconds - 1));
  }
  const spread = (xs: number[]) => ({
    median_pct: round(100 * median(xs), 3),
    p90_pct: round(100 * quantileOf(xs, 0.9), 3),
    max_pct: round(100 * Math.max(...xs), 3),
  });
  return {
    pairs: pairs.length,
    weight: spread(weight),
    time: spread(time),
    sampled_total_cpu_ms: round(cpu.sampled, 0),
    every_layer_total_cpu_ms: round(cpu.every, 0),
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
    '| settings | slices | weight error median / p90 | time error median / p90 | both inside range | range half-width median (weight, time) | scaled from default: weight / time error median |';
  const lines = [head, '|---|---|---|---|---|---|---|'];
  const dash = (v: number) => (Number.isNaN(v) ? '–' : `${v} %`);
  for (const [name, s] of Object.entries(byVariant)) {
    lines.push(
      `| ${name} | ${s.slices} | ${s.weight_error_median_pct} % / ${s.weight_error_p90_pct} % | ` +
        `${s.time_error_median_pct} % / ${s.time_error_p90_pct} % | ${s.both_inside_range_pct} % | ` +
        `±${s.weight_half_width_median_pct} %, ±${s.time_half_width_median_pct} % | ` +
        `${dash(s.scaled_weight_error_median_pct)} / ${dash(s.scaled_time_error_median_pct)} |`,
    );
  }
  return lines.join('\n');
}

/** The table of one split: all its slices, then per setting. */
function tableOf(rows: Row[]): Record<string, ReturnType<typeof summary>> {
  const byVariant: Record<string, ReturnType<typeof summary>> = { all: summary(rows) };
  for (const v of VARIANTS) byVariant[v.name] = summary(rows.filter((r) => r.variant === v.name));
  return byVariant;
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
  const byVariant = tableOf(heldRows);
  const finalPairs = pairs.filter((p) => p.model.split === 'final');
  const finalRows = withFinal ? rowsOf(finalPairs, calibration) : [];
  const finalTable = withFinal ? tableOf(finalRows) : null;
  const benchy = models.find((m) => m.name.includes('3DBenchy'))!;
  const table = markdown(byVariant);
  console.error(`\nestimate: development models, calibration fitted on the training models only\n${table}\n`);
  if (finalTable) {
    console.error(`estimate: FINAL held-out models (never used for fitting or choosing)\n${markdown(finalTable)}\n`);
  }
  const coarse = benchCoarse(train, heldOut, withFinal ? finalPairs : null);
  const stages = stagesTable([
    { name: 'development', fine: heldRows, coarse: coarse.development },
    ...(coarse.final ? [{ name: 'final held-out', fine: finalRows, coarse: coarse.final }] : []),
  ]);
  console.error(`estimate: the coarse and fine stages, both calibrated on the training models only\n${stages}\n`);
  const perModel = [...new Set(heldRows.map((r) => r.model))].map((name) => {
    const rows = heldRows.filter((r) => r.model === name);
    return { model: name, ...summary(rows) };
  });
  return {
    slicer: (await detectSlicer()).version,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
    split: {
      train: [...new Set(train.map((p) => p.model.name))],
      development: [...new Set(heldOut.map((p) => `${p.model.name} (${p.model.origin})`))],
      final: withFinal ? [...new Set(finalPairs.map((p) => p.model.name))] : 'not read (SQ_ESTIMATE_FINAL=1 reads it)',
      variants: VARIANTS.map((v) => v.name),
    },
    calibration,
    shipped_calibration_max_coefficient_gap: round(coefficientGap(calibration, DEFAULT_CALIBRATION), 6),
    development: byVariant,
    development_table: table,
    final_held_out: finalTable,
    final_held_out_table: finalTable ? markdown(finalTable) : null,
    per_final_model: [...new Set(finalRows.map((r) => r.model))].map((name) => ({
      model: name,
      ...summary(finalRows.filter((r) => r.model === name)),
    })),
    train_in_sample: summary(rowsOf(train, calibration)),
    per_development_model: perModel,
    worst_development: [...heldRows]
      .sort((a, b) => b.weight_error + b.time_error - (a.weight_error + a.time_error))
      .slice(0, 10)
      .map((r) => ({ ...r, weight_error: pct(r.weight_error), time_error: pct(r.time_error) })),
    features_cpu: { train: featureCost(train), development: featureCost(heldOut) },
    sampling_deviation: samplingDeviation([...train, ...heldOut], calibration),
    latency_3dbenchy: process.env.SQ_ESTIMATE_NO_LATENCY === '1' ? null : latency(benchy, calibration, 15),
    latency_3dbenchy_every_layer:
      process.env.SQ_ESTIMATE_NO_LATENCY === '1' ? null : latency(benchy, calibration, 15, 3, { everyLayer: true }),
    coarse: {
      calibration: coarse.calibration,
      shipped_calibration_max_coefficient_gap: coarse.shipped_calibration_max_coefficient_gap,
      development: tableOf(coarse.development),
      final_held_out: coarse.final ? tableOf(coarse.final) : null,
      stages_table: stages,
      latency_3dbenchy:
        process.env.SQ_ESTIMATE_NO_LATENCY === '1' ? null : coarseLatency(benchy, modelsDir, coarse.calibration),
    },
    failed_slices: failed,
    wall_s: round((performance.now() - started) / 1000, 1),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchEstimate(join(process.cwd(), 'test', 'fixtures', 'models')), null, 2));
}
