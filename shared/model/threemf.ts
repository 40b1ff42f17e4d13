// 3MF: a zip (OPC package) whose _rels/.rels names the 3D model part, an XML document of
// objects and build items. See zip.ts, opc.ts and threemf/ for the pieces.
import { ruleViolation } from './errors.ts';
import type { ParseLimits } from './limits.ts';
import { MeshBuilder, type Mesh } from './mesh.ts';
import { contentTypeOf, CT_3DMODEL, readPackageStructure } from './opc.ts';
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
  const { root, contentTypes } = readPackageStructure(pkg, limits);
  const type = contentTypeOf(contentTypes, root);
  if (type !== CT_3DMODEL) {
    ruleViolation('Chapter 2.1', `The 3D model part ${root} has content type "${(type ?? 'none').slice(0, 100)}" instead of ${CT_3DMODEL}`);
  }
  const reader = new PartReader(pkg, limits);
  const rootPart = reader.load([root], true)[0];
  // Production extension: the root may place objects from other model parts (p:path); those
  // parts are read together, in one more pass over the zip.
  reader.load(referencedParts(rootPart), false);
  const builder = new MeshBuilder(limits, limits.maxTriangles - reader.budget.triangles);
  assemble(rootPart, { limits, builder, part: (name, from) => reader.get(name, from, rootPart) });
  return { mesh: builder.finish(), unit: rootPart.unit, degenerate: builder.degenerateCount, warnings: [...reader.warnings] };
}

/** Model parts named by p:path in the root's build items and components. */
function referencedParts(root: ModelPart): string[] {
  const paths = new Map<string, string>();
  const add = (path?: string) => path !== undefined && paths.set(partKey(path), path);
  for (const item of root.build) add(item.path);
  for (const object of root.objects.values()) for (const component of object.components ?? []) add(component.path);
  paths.delete(partKey(root.name));
  return [...paths.values()];
}

class PartReader {
  readonly budget: PackageBudget;
  readonly warnings = new Set<string>();
  private readonly parts = new Map<string, ModelPart>();

  constructor(
    private readonly pkg: ZipPackage,
    private readonly limits: ParseLimits,
  ) {
    this.budget = { vertices: limits.maxVertices, triangles: limits.maxTriangles, resources: limits.maxObjects };
  }

  /** Reads model parts (streamed, in one zip pass) and returns them in order. */
  load(names: string[], isRoot: boolean): ModelPart[] {
    const readers = new Map<string, ModelPartReader>();
    const streams = new Map<string, XmlStream>();
    for (const name of names) {
      const reader = new ModelPartReader(name, isRoot, this.limits, this.budget, (path) => this.pkg.has(path));
      readers.set(name, reader);
      streams.set(name, new XmlStream(name, this.limits.maxXmlDepth, reader));
    }
    this.pkg.streamMany(names, (name) => (chunk) => streams.get(name)!.write(chunk));
    return names.map((name) => {
      streams.get(name)!.end();
      const reader = readers.get(name)!;
      for (const warning of reader.warnings) this.warnings.add(warning);
      this.parts.set(partKey(name), reader.result);
      return reader.result;
    });
  }

  /** A part referenced from `from`; only the root may refer to other parts. */
  get(name: string, from: ModelPart, root: ModelPart): ModelPart {
    const part = this.parts.get(partKey(name));
    if (part && from === root) return part;
    return ruleViolation('Production Extension Chapter 3', `The model part ${from.name} refers to ${name.slice(0, 200)} with p:path; only the root model part may refer to other model parts`);
  }
}
