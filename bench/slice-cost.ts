// `npm run bench -- slice-cost`: how well the slice cost model (server/slicer/cost.ts) predicts PrusaSlicer's real
// CPU seconds. The coefficients are fitted on the TRAIN models only (bench/slice-cost-data.ts keeps the split) and
// the error is reported on the HELD_OUT ones, which the fit never sees; the shipped coefficients are printed beside
// a fresh fit, so a change of machine or slicer shows.
import { COST_COEFFICIENTS, COST_TERM_NAMES, costTerms, referenceSeconds } from '../server/slicer/cost.ts';
import { fitRelativeRidge, quantile } from '../shared/estimate/least-squares.ts';
import { type CostSample, costSamples } from './slice-cost-data.ts';

const errors = (samples: CostSample[], coefficients: readonly number[]) =>
  samples.map((s) => Math.abs(referenceSeconds(s.inputs, coefficients) / s.seconds! - 1)).sort((a, b) => a - b);

const summary = (e: number[]) => ({
  n: e.length,
  median_pct: +(quantile(e, 0.5) * 100).toFixed(1),
  p90_pct: +(quantile(e, 0.9) * 100).toFixed(1),
  max_pct: +((e.at(-1) ?? 0) * 100).toFixed(1),
});

export async function benchSliceCost(modelsDir: string) {
  const samples = (await costSamples(modelsDir)).filter((s) => s.seconds !== null && s.seconds > 0);
  const train = samples.filter((s) => s.split === 'train');
  const heldOut = samples.filter((s) => s.split === 'held_out');
  const fitted = fitRelativeRidge(
    train.map((s) => costTerms(s.inputs)),
    train.map((s) => s.seconds!),
    COST_TERM_NAMES.map(() => 0.5),
    1e-3,
  );
  return {
    what: 'CPU seconds of the bare PrusaSlicer CLI, predicted from the mesh measurements and settings',
    samples: { train: train.length, held_out: heldOut.length },
    fresh_fit: Object.fromEntries(COST_TERM_NAMES.map((n, k) => [n, +fitted[k]!.toFixed(4)])),
    shipped: Object.fromEntries(COST_TERM_NAMES.map((n, k) => [n, COST_COEFFICIENTS[k]])),
    error_shipped: {
      train: summary(errors(train, COST_COEFFICIENTS)),
      held_out: summary(errors(heldOut, COST_COEFFICIENTS)),
    },
    error_fresh_fit: { train: summary(errors(train, fitted)), held_out: summary(errors(heldOut, fitted)) },
    // A slice may run 8 × its prediction (server/quotes/slice-cost.ts): how close the worst held-out slice came.
    held_out_longest_real_over_predicted: +Math.max(
      ...heldOut.map((s) => s.seconds! / referenceSeconds(s.inputs, COST_COEFFICIENTS)),
    ).toFixed(2),
    held_out: heldOut.map((s) => ({
      model: s.model,
      variant: s.variant,
      real_s: +s.seconds!.toFixed(2),
      predicted_s: +referenceSeconds(s.inputs).toFixed(2),
    })),
  };
}
