// The estimator benchmark's coarse stage (docs/estimate.md, "Coarse to fine"): its calibration fitted on the
// training models only, its error and range coverage on the held-out models beside the fine stage's, and its
// latency on 3DBenchy (the parse that precedes it in the widget's worker measured beside it). bench/estimate.ts
// runs it.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import {
  type CoarseCalibration,
  type CoarseSample,
  DEFAULT_COARSE_CALIBRATION,
  extractCoarseFeatures,
  fitCoarseCalibration,
  predictCoarse,
} from '../shared/estimate/index.ts';
import { detectFormat, parseModel } from '../shared/model/index.ts';
import { type BenchModel, VARIANTS } from './estimate-corpus.ts';
import { median, type Pair, type Row, round, rowsFrom, summary } from './estimate-rows.ts';

export function coarseSamplesOf(pairs: Pair[]): CoarseSample[] {
  return pairs.map(({ model, variant, real }) => ({
    features: extractCoarseFeatures(model.mesh, variant.settings),
    volume_mm3: real.volume_mm3,
    time_s: real.time_s,
    group: model.name,
  }));
}

const coarseRows = (pairs: Pair[], calibration: CoarseCalibration): Row[] =>
  rowsFrom(
    pairs,
    pairs.map(({ model, variant }) =>
      predictCoarse(extractCoarseFeatures(model.mesh, variant.settings), variant.settings, calibration),
    ),
    null,
  );

/** One row of the stages' table. */
function stageLine(split: string, stage: string, rows: Row[]): string {
  const s = summary(rows);
  return (
    `| ${split} | ${stage} | ${s.slices} | ${s.weight_error_median_pct} / ${s.weight_error_p90_pct} % | ` +
    `${s.time_error_median_pct} / ${s.time_error_p90_pct} % | ${s.weight_inside_range_pct} / ` +
    `${s.time_inside_range_pct} / ${s.both_inside_range_pct} % | ±${s.weight_half_width_median_pct} %, ` +
    `±${s.time_half_width_median_pct} % |`
  );
}

/** The coarse and fine stages side by side, per split. */
export function stagesTable(splits: { name: string; fine: Row[]; coarse: Row[] }[]): string {
  const lines = [
    '| split | stage | slices | weight error median / p90 | time error median / p90 | inside range: weight / time / both | range half-width median (weight, time) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const { name, fine, coarse } of splits) {
    lines.push(stageLine(name, 'coarse', coarse), stageLine(name, 'fine', fine));
  }
  return lines.join('\n');
}

const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/**
 * The coarse stage's latency on 3DBenchy (features + prediction), and the parse of its 11 MB STL that comes first in
 * the widget's worker: the first call in this process and the median of `runs` after `warmups` more, wall and CPU.
 */
export function coarseLatency(model: BenchModel, modelsDir: string, calibration: CoarseCalibration, runs = 15) {
  const s = VARIANTS[0]!.settings;
  const bytes = new Uint8Array(readFileSync(join(modelsDir, 'stl', '3DBenchy.stl')));
  const timed = (f: () => unknown) => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    f();
    return { wall: performance.now() - t0, cpu: cpuMsSince(cpu) };
  };
  const coarse = () => predictCoarse(extractCoarseFeatures(model.mesh, s), s, calibration);
  const parse = () => parseModel(bytes, detectFormat('3DBenchy.stl', bytes) ?? undefined);
  const firstParse = timed(parse);
  const first = timed(coarse);
  for (let i = 0; i < 3; i++) coarse();
  const coarseRuns = Array.from({ length: runs }, () => timed(coarse));
  const parseRuns = Array.from({ length: 5 }, () => timed(parse));
  const stats = (xs: { wall: number; cpu: number }[]) => ({
    median_ms: round(median(xs.map((x) => x.wall)), 1),
    median_cpu_ms: round(median(xs.map((x) => x.cpu)), 1),
  });
  return {
    model: model.name,
    triangles: model.mesh.indices.length / 3,
    first_call_ms: round(first.wall, 1),
    first_call_cpu_ms: round(first.cpu, 1),
    runs,
    ...stats(coarseRuns),
    parse_first_ms: round(firstParse.wall, 1),
    parse: stats(parseRuns),
    load_average: round(loadavg()[0]!, 2),
  };
}

const coefficientGap = (a: CoarseCalibration, b: CoarseCalibration) =>
  Math.max(
    ...(['volume', 'time'] as const).flatMap((k) =>
      Object.entries(a[k].coefficients).map(([t, v]) => Math.abs(v - (b[k].coefficients as any)[t])),
    ),
  );

/** The coarse stage's part of the benchmark: fitted on `train`, rows of the held-out splits (the final one only
 *  when it is read). */
export function benchCoarse(train: Pair[], dev: Pair[], final: Pair[] | null) {
  const calibration = fitCoarseCalibration(coarseSamplesOf(train));
  return {
    calibration,
    shipped_calibration_max_coefficient_gap: round(coefficientGap(calibration, DEFAULT_COARSE_CALIBRATION), 6),
    development: coarseRows(dev, calibration),
    final: final ? coarseRows(final, calibration) : null,
  };
}
