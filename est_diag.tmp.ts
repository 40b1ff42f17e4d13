import { benchModels, MODELS_DIR, VARIANTS } from './bench/estimate-corpus.ts';
import { collectPairs } from './bench/estimate.ts';
import { extractFeatures, predict, UNCALIBRATED } from './shared/estimate/index.ts';
const which = process.argv[2] ?? 'default';
const models = benchModels(MODELS_DIR).filter((m) => m.split !== 'final');
const { pairs } = await collectPairs(models);
for (const p of pairs) {
  if (p.variant.name !== which) continue;
  const f = extractFeatures(p.model.mesh, p.variant.settings);
  const e = predict(f, p.variant.settings, UNCALIBRATED);
  const v = f.volume_terms;
  console.log(p.model.split.padEnd(5), p.model.name.slice(0, 30).padEnd(30), 'vol', (e.filament_volume_mm3 / p.real.volume_mm3 - 1).toFixed(3).padStart(7), 'time', (e.estimated_time_seconds / p.real.time_s - 1).toFixed(3).padStart(7),
    'w', v.walls.toFixed(0), 's', v.solid.toFixed(0), 'sp', v.sparse.toFixed(0), 'an', v.anchors.toFixed(0), 'sup', v.support.toFixed(0), 'real', p.real.volume_mm3.toFixed(0), 'supshare', p.real.support_share.toFixed(2));
}
