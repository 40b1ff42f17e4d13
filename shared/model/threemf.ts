// 3MF: a zip (OPC package) whose _rels/.rels names the 3D model part, an XML document of
// objects and build items. See zip.ts, opc.ts and threemf/ for the pieces.
import { ruleViolation } from './errors.ts';
import type { ParseLimits } from './limits.ts';
import { type Mesh, MeshBuilder } from './mesh.ts';
import { CT_3DMODEL, contentTypeOf, readPackageStructure } from './opc.ts';
import { assemble } from './threemf/assemble.ts';
import { type ModelPart, ModelPartReader, type PackageBudget } from './threemf/model-part.ts';
import { ColourUse, multiMaterialWarning } from './threemf/multi-material.ts';
import {
  applyProjectConfig,
  isPrusaSlicerProject,
  printConfigWarning,
  readProjectConfig,
} from './threemf/prusaslicer.ts';
import { type ModelWarning, modelWarning, WarningList } from './warnings.ts';
import { XmlStream } from './xml.ts';
import { partKey, ZipPackage } from './zip.ts';

export interface ThreeMfResult {
  mesh: Mesh;
  /** PrusaSlicer negative volumes, to be subtracted from `mesh` by the slicer; null when there are none. */
  negative: Mesh | null;
  unit: string;
  degenerate: number;
  warnings: ModelWarning[];
}

export function parse3mf(bytes: Uint8Array, limits: ParseLimits): ThreeMfResult {
  const pkg = new ZipPackage(bytes, limits);
  const project = isPrusaSlicerProject(pkg);
  const { root, contentTypes, missingThumbnails } = readPackageStructure(pkg, limits, {
    tolerateMissingThumbnail: project,
  });
  const type = contentTypeOf(contentTypes, root);
  if (type !== CT_3DMODEL) {
    ruleViolation(
      'Chapter 2.1',
      `The 3D model part ${root} has content type "${(type ?? 'none').slice(0, 100)}" instead of ${CT_3DMODEL}`,
    );
  }
  const reader = new PartReader(pkg, limits);
  const rootPart = reader.load([root], true)[0]!; // load returns one part per name
  // Production extension: the root may place objects from other model parts (p:path); those
  // parts are read together, in one more pass over the zip.
  reader.load(referencedParts(rootPart), false);
  const warnings = new WarningList();
  warnings.addAll(reader.warnings.toArray());
  warnings.addAll(missingThumbnails.map(missingThumbnailWarning));
  let extruders = 0;
  if (project) {
    const config = readProjectConfig(pkg, limits);
    warnings.addAll(applyProjectConfig(rootPart, config));
    warnings.addAll(printConfigWarning(pkg));
    extruders = config.extruders.size;
  }
  const multi = multiMaterialWarning(reader.colours, extruders);
  if (multi) warnings.add(multi);
  const builder = new MeshBuilder(limits, limits.maxTriangles - reader.budget.triangles);
  const negative = new MeshBuilder(limits);
  assemble(rootPart, { limits, builder, negative, part: (name, from) => reader.get(name, from, rootPart) });
  const negativeMesh = negative.triangles > 0 ? negative.finish() : null;
  const mesh = builder.finish();
  return {
    mesh,
    negative: negativeMesh,
    unit: rootPart.unit,
    degenerate: builder.degenerateCount,
    warnings: warnings.toArray(),
  };
}

/** PrusaSlicer 2.5's command line lists a thumbnail it never writes; nothing printed depends on it. */
function missingThumbnailWarning(part: string): ModelWarning {
  const message = `The package lists a thumbnail (${part}) that it does not contain; the model itself is complete.`;
  return modelWarning('missing_thumbnail', message, { part });
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
  readonly warnings = new WarningList();
  readonly colours = new ColourUse();
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
      const reader = new ModelPartReader(
        name,
        isRoot,
        this.limits,
        this.budget,
        (path) => this.pkg.has(path),
        this.colours,
      );
      readers.set(name, reader);
      streams.set(name, new XmlStream(name, this.limits, reader));
    }
    this.pkg.streamMany(names, (name) => (chunk) => streams.get(name)!.write(chunk));
    return names.map((name) => {
      streams.get(name)!.end();
      const reader = readers.get(name)!;
      this.warnings.addAll(reader.warnings.toArray());
      this.parts.set(partKey(name), reader.result);
      return reader.result;
    });
  }

  /** A part referenced from `from`; only the root may refer to other parts. */
  get(name: string, from: ModelPart, root: ModelPart): ModelPart {
    const part = this.parts.get(partKey(name));
    if (part && from === root) return part;
    return ruleViolation(
      'Production Extension Chapter 3',
      `The model part ${from.name} refers to ${name.slice(0, 200)} with p:path; only the root model part may refer to other model parts`,
    );
  }
}
