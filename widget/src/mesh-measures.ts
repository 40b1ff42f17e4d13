// The estimator's measurements of a part's mesh (docs/instant-price.md): the parse worker keeps the mesh, so that a
// changed choice's estimate is measured from it at the part's size, each stage and settings once.
import type { EstimateSettings } from '../../shared/estimate/index.ts';
import type { ParseRun } from './parse-client.ts';
import type { EstimateStage, StageFeatures } from './parse-protocol.ts';
import type { WidgetConfig } from './types.ts';

export class MeshMeasures {
  /** The parse worker of the file, which keeps its mesh to measure a changed choice's estimate. */
  private run: ParseRun | null = null;
  /** The part's scale since it was read (a rescale on the server): what the worker's mesh is measured at. */
  scale = 1;
  /** The features measured of the mesh, by stage, size and settings. */
  private readonly measured = new Map<string, Promise<StageFeatures[EstimateStage] | null>>();

  /** A new file's parse (or none): the measurements of the last one are forgotten. */
  reset(run: ParseRun | null): void {
    this.run = run;
    this.scale = 1;
    this.measured.clear();
  }

  /**
   * The estimator's features of one stage of the mesh with `settings` at its size: the first ones measured with the
   * parse, others measured once each (a material change keeps them: no setting the estimator reads changes with the
   * material).
   */
  measure<S extends EstimateStage>(
    stage: S,
    settings: EstimateSettings,
    config: WidgetConfig | null,
  ): Promise<StageFeatures[S] | null> {
    const { run } = this;
    if (!run || !config) return Promise.resolve(null);
    const key = `${stage}|${this.scale}|${JSON.stringify(settings)}`;
    let features = this.measured.get(key) as Promise<StageFeatures[S] | null> | undefined;
    if (!features) {
      const first = this.scale === 1 && JSON.stringify(settings) === JSON.stringify(config.slice_settings);
      features = first ? run.first[stage] : run.measure(stage, settings, this.scale);
      this.measured.set(key, features);
    }
    return features;
  }
}
