import { benchModels, MODELS_DIR } from './bench/estimate-corpus.ts';
import { collectPairs, samplesOf } from './bench/estimate.ts';
import { fitCalibration, predict, UNCALIBRATED, type Calibration } from './shared/estimate/index.ts';
const models = benchModels(MODELS_DIR).filter((m) => m.split !== 'final');
const { pairs } = await collectPairs(models);
const samples = samplesOf(pairs);
const idx = (split: string) => pairs.map((p, i) => [p, i] as const).filter(([p]) => p.model.split === split);
const q = (xs: number[], f: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) * f)]!; };
const report = (name: string, c: Calibration, split: string) => {
  const w: number[] = []; const t: number[] = [];
  for (const [p, i] of idx(split)) {
    const e = predict(samples[i]!.features, p.variant.settings, c);
    w.push(Math.abs(e.filament_volume_mm3 / p.real.volume_mm3 - 1)); t.push(Math.abs(e.estimated_time_seconds / p.real.time_s - 1));
  }
  console.log(name.padEnd(28), split, 'w', (q(w, .5) * 100).toFixed(1), (q(w, .9) * 100).toFixed(1), 't', (q(t, .5) * 100).toFixed(1), (q(t, .9) * 100).toFixed(1));
};
report('uncalibrated', UNCALIBRATED, 'train'); report('uncalibrated', UNCALIBRATED, 'dev');
const train = samples.filter((_, i) => pairs[i]!.model.split === 'train');
for (const rv of [1, 10, 100, 1000]) for (const rt of [0.2, 2, 20]) {
  const c = fitCalibration(train, { ridge: { volume: rv, time: rt } });
  report(`ridge v${rv} t${rt}`, c, 'dev');
}
