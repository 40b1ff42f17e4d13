// Instantiates the build: every build item, its components recursively, each transformed into
// millimetre world coordinates and welded into one mesh. Only objects reachable from build items
// are output. Component chains are bounded in depth and cycles refused. Instancing multiplies
// work, so it has its own budgets: instances visited (maxObjects; ten components of ten
// components... is a fan-out bomb even when every mesh is empty) and vertices emitted
// (maxVertices; one big mesh stacked many times in one place welds into few vertices but still
// costs a hash lookup per copy).
import { fail, ruleViolation } from '../errors.ts';
import type { ParseLimits } from '../limits.ts';
import type { MeshBuilder } from '../mesh.ts';
import type { MeshData, ModelPart, Reference } from './model-part.ts';
import { compose, determinant, IDENTITY, scaleTranslation, type Transform } from './transform.ts';

export interface AssembleContext {
  limits: ParseLimits;
  builder: MeshBuilder;
  /** Receives negative volumes (PrusaSlicer projects), placed like the parts they cut. */
  negative: MeshBuilder;
  /** The model part named by a p:path found in part `from`. */
  part(name: string, from: ModelPart): ModelPart;
}

export function assemble(root: ModelPart, ctx: AssembleContext): void {
  const state = { visits: 0, emitted: 0, visiting: new Set<string>(), map: new Uint32Array(0) };
  for (const item of root.build) instantiate(ctx, state, root, item, IDENTITY, 0, true);
}

interface State {
  visits: number;
  emitted: number;
  visiting: Set<string>;
  /** Scratch: object vertex -> welded vertex, reused across instances. */
  map: Uint32Array;
}

function instantiate(
  ctx: AssembleContext,
  state: State,
  from: ModelPart,
  ref: Reference,
  parent: Transform,
  depth: number,
  isItem: boolean,
): void {
  const part = ref.path === undefined ? from : ctx.part(ref.path, from);
  const object = part.objects.get(ref.objectId);
  const what = isItem ? 'A build item' : 'A component';
  if (!object)
    ruleViolation(
      isItem ? 'Chapter 3.4.3.1' : 'Chapter 4.2',
      `${what} refers to object ${ref.objectId}, which does not exist in ${part.name}`,
    );
  if (object.type === 'other') {
    if (isItem)
      ruleViolation(
        'Chapter 3.4.3.1',
        `A build item refers to object ${ref.objectId} of type "other"; such objects must not be build items`,
      );
    return; // "other" objects are not printed, even as components
  }
  if (depth > ctx.limits.maxComponentDepth) {
    fail('component_too_deep', `The 3MF components nest more than ${ctx.limits.maxComponentDepth} levels deep.`, {
      limit: ctx.limits.maxComponentDepth,
    });
  }
  if (++state.visits > ctx.limits.maxObjects) {
    fail('too_many_instances', `The 3MF build instantiates objects more than ${ctx.limits.maxObjects} times.`, {
      limit: ctx.limits.maxObjects,
    });
  }
  const key = `${part.name}#${object.id}`;
  if (state.visiting.has(key)) {
    fail(
      'component_cycle',
      `Object ${object.id} in ${part.name} contains itself through its components (a component cycle).`,
      { object: object.id },
    );
  }
  // The transform is written in the referring part's unit: convert its translation to mm.
  const world = ref.transform === IDENTITY ? parent : compose(scaleTranslation(ref.transform, from.scale), parent);
  if (object.mesh) emitMesh(ctx, ctx.builder, state, object.mesh, part.scale, world);
  if (object.negative) emitMesh(ctx, ctx.negative, state, object.negative, part.scale, world);
  if (!object.components) return;
  state.visiting.add(key);
  for (const component of object.components) instantiate(ctx, state, part, component, world, depth + 1, false);
  state.visiting.delete(key);
}

function emitMesh(
  ctx: AssembleContext,
  builder: MeshBuilder,
  state: State,
  mesh: MeshData,
  scale: number,
  m: Transform,
): void {
  state.emitted += mesh.vertexCount;
  const limit = ctx.limits.maxVertices;
  if (state.emitted > limit) {
    fail('too_many_vertices', `The 3MF build places more than ${limit} vertices (counting every instance).`, { limit });
  }
  if (state.map.length < mesh.vertexCount) state.map = new Uint32Array(mesh.vertexCount);
  const map = state.map,
    v = mesh.vertices;
  // v holds vertexCount positions, m its 12 entries and t indices below vertexCount: every read is in range.
  for (let i = 0, o = 0; i < mesh.vertexCount; i++, o += 3) {
    const x = v[o]! * scale,
      y = v[o + 1]! * scale,
      z = v[o + 2]! * scale;
    const wx = x * m[0]! + y * m[3]! + z * m[6]! + m[9]!;
    const wy = x * m[1]! + y * m[4]! + z * m[7]! + m[10]!;
    const wz = x * m[2]! + y * m[5]! + z * m[8]! + m[11]!;
    if (!Number.isFinite(wx) || !Number.isFinite(wy) || !Number.isFinite(wz)) {
      fail('non_finite_vertex', 'A vertex of the 3MF model is not finite once its transforms are applied.');
    }
    map[i] = builder.addVertex(wx, wy, wz);
  }
  // A mirroring transform turns the surface inside out; swap two corners to keep normals outward.
  const flip = determinant(m) < 0;
  const t = mesh.triangles;
  for (let i = 0; i < mesh.triangleCount * 3; i += 3) {
    const a = map[t[i]!]!,
      b = map[t[i + 1]!]!,
      c = map[t[i + 2]!]!;
    if (flip) builder.addTriangle(a, c, b);
    else builder.addTriangle(a, b, c);
  }
}
