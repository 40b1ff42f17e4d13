// 3MF: a zip (OPC package) whose _rels/.rels names the 3D model part, an XML document of
// objects and build items. See zip.ts, opc.ts and threemf/ for the pieces.
import { fail, ruleViolation } from './errors.ts';
import type { ParseLimits } from './limits.ts';
import { MeshBuilder, type Mesh } from './mesh.ts';
import { contentTypeOf, CT_3DMODEL, findRootModelPart, readContentTypes } from './opc.ts';
import { assemble } from './threemf/assemble.ts';
import { ModelPartReader, type ModelPart, type PackageBudget } from './threemf/model-part.ts';
import { XmlStream } from './xml.ts';
import { partKey, ZipPackage } from './zip.ts';

export interface ThreeMfResult {
  mesh: Mesh;
  unit: string;
  degenerate: number;
  warnings: string[];
}

export function parse3mf(bytes: Uint8Array, limits: ParseLimits): ThreeMfResult {
  const pkg = new ZipPackage(bytes, limits);
  const { root } = findRootModelPart(pkg, limits);
  const types = readContentTypes(pkg, limits);
  const type = contentTypeOf(types, root);
  if (type !== CT_3DMODEL) {
    ruleViolation('Chapter 2.1', `The 3D model part ${root} has content type "${(type ?? 'none').slice(0, 100)}" instead of ${CT_3DMODEL}`);
  }
  const budget: PackageBudget = { vertices: limits.maxVertices, triangles: limits.maxTriangles, resources: limits.maxObjects };
  const parts = new Map<string, ModelPart>();
  const warnings = new Set<string>();
  const load = (name: string, isRoot: boolean): ModelPart => {
    const cached = parts.get(partKey(name));
    if (cached) return cached;
    if (!pkg.has(name)) fail('model_part_missing', `The 3MF model part ${name.slice(0, 200)} does not exist in the package.`, { part: name });
    const reader = new ModelPartReader(name, isRoot, limits, budget, (path) => pkg.has(path));
    const xml = new XmlStream(name, limits.maxXmlDepth, reader);
    pkg.stream(name, (chunk) => xml.write(chunk));
    xml.end();
    for (const warning of reader.warnings) warnings.add(warning);
    parts.set(partKey(name), reader.result);
    return reader.result;
  };
  const rootPart = load(root, true);
  const builder = new MeshBuilder(limits, limits.maxTriangles - budget.triangles);
  assemble(rootPart, { limits, builder, part: (name) => load(name, false) });
  return { mesh: builder.finish(), unit: rootPart.unit, degenerate: builder.degenerateCount, warnings: [...warnings] };
}
