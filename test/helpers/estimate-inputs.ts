// What the estimator's unit tests feed it: a mesh parsed from OBJ text and settings. Node only: the parsers are not
// for the browser's component tests, which load test/helpers/meshes.ts.
import { detectFormat, type Mesh, parseModel } from '../../shared/model/index.ts';
import { DEFAULT_SETTINGS, type ResolvedSettings } from '../../shared/settings.ts';

/** The mesh of an OBJ text, parsed as an upload is. */
export function meshOf(obj: string): Mesh {
  const bytes = new TextEncoder().encode(obj);
  return parseModel(bytes, detectFormat('m.obj', bytes) ?? undefined).mesh;
}

/** The default settings with some of the printer's changed. */
export function settingsWith(changes: Partial<ResolvedSettings['printer']> = {}): ResolvedSettings {
  const s = structuredClone(DEFAULT_SETTINGS);
  Object.assign(s.printer, changes);
  return s;
}
