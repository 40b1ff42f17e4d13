// Reads one 3D model part (XML, streamed) into objects and build items. Geometry is kept in the
// part's own unit here; assemble.ts converts to millimetres and instantiates the build.
import type { SaxesAttributeNS, SaxesTagNS } from 'saxes';
import { fail, ruleViolation } from '../errors.ts';
import type { ParseLimits } from '../limits.ts';
import { parseIndexString, parseNumberString } from '../number.ts';
import { modelWarning, WarningList } from '../warnings.ts';
import type { XmlHandler } from '../xml.ts';
import { checkColor, isMaterialResource, type Resource, readMaterialResource, validateResources } from './materials.ts';
import { ColourUse, NS_SLIC3RPE } from './multi-material.ts';
import { NS_MATERIAL, NS_PRODUCTION, SUPPORTED_REQUIRED } from './namespaces.ts';
import { attributeNS, NamespaceScope } from './scope.ts';
import { IDENTITY, parseTransform, type Transform } from './transform.ts';

export type ObjectType = 'model' | 'solidsupport' | 'support' | 'surface' | 'other';
const OBJECT_TYPES = new Set<string>(['model', 'solidsupport', 'support', 'surface', 'other']);

export const UNIT_SCALE: Record<string, number> = {
  micron: 0.001,
  millimeter: 1,
  centimeter: 10,
  inch: 25.4,
  foot: 304.8,
  meter: 1000,
};

export interface MeshData {
  vertices: Float64Array;
  vertexCount: number;
  triangles: Uint32Array;
  triangleCount: number;
}

export interface Reference {
  objectId: number;
  /** Production extension p:path: the model part holding the object; absent means this part. */
  path?: string;
  transform: Transform;
}

export interface ObjectDef {
  id: number;
  type: ObjectType;
  mesh?: MeshData;
  /** PrusaSlicer negative volumes of this object (see prusaslicer.ts): cut away from the mesh when slicing. */
  negative?: MeshData;
  components?: Reference[];
  /** The object's own property (Materials extension pid and pindex), which its triangles use unless they name one. */
  property?: { pid: string; index: string };
}

export interface ModelPart {
  name: string;
  unit: string;
  scale: number;
  objects: Map<number, ObjectDef>;
  build: Reference[];
}

/** Counts shared by all model parts of a package, so several parts cannot multiply the caps. */
export interface PackageBudget {
  vertices: number;
  triangles: number;
  resources: number;
}

const WELL_KNOWN_ABSENT_NAMES = new Set(['', 'undefined']);

export class ModelPartReader implements XmlHandler {
  readonly result: ModelPart;
  readonly warnings = new WarningList();
  private readonly scope: NamespaceScope;
  private readonly kinds: string[] = [];
  private skipDepth = 0;
  private readonly resources = new Map<number, Resource>();
  private readonly modelMetadata = new Set<string>();
  private groupMetadata: Set<string> | undefined;
  private object: ObjectDef | undefined;
  private colorGroup = 0;
  private seen = { resources: 0, build: 0 };

  constructor(
    private readonly part: string,
    private readonly isRoot: boolean,
    private readonly limits: ParseLimits,
    private readonly budget: PackageBudget,
    private readonly partExists: (path: string) => boolean,
    /** The colours the package's objects use, shared by its parts (multi-material.ts). */
    private readonly colours: ColourUse = new ColourUse(),
  ) {
    this.scope = new NamespaceScope(part);
    this.result = { name: part, unit: 'millimeter', scale: 1, objects: new Map(), build: [] };
  }

  open(tag: SaxesTagNS, depth: number, prefixed: readonly SaxesAttributeNS[]): void {
    if (this.skipDepth !== 0) return;
    this.scope.enter(tag, depth, prefixed);
    const ns = this.scope.classify(tag, depth);
    // The parent element (depth - 1) was opened, and its kind recorded, before this one.
    const kind =
      ns === 'ignorable'
        ? 'skip'
        : this.dispatch(tag, depth === 1 ? 'document' : this.kinds[depth - 1]!, ns === 'core');
    this.kinds[depth] = kind;
    if (kind === 'skip') this.skipDepth = depth;
    else this.scope.checkAttributes(tag, depth);
  }

  close(_tag: SaxesTagNS, depth: number): void {
    if (this.skipDepth !== 0) {
      if (depth === this.skipDepth) this.skipDepth = 0;
      return;
    }
    const kind = this.kinds[depth];
    if (kind === 'object') this.object = undefined;
    else if (kind === 'metadatagroup') this.groupMetadata = undefined;
    else if (kind === 'resources') validateResources(this.resources);
    else if (kind === 'model') this.finish();
  }

  /** Decides what an element is from its parent; returns its kind, or 'skip' to ignore its subtree. */
  private dispatch(tag: SaxesTagNS, parent: string, core: boolean): string {
    const local = tag.local;
    switch (parent) {
      case 'document':
        if (core && local === 'model') return this.model(tag);
        return ruleViolation(
          'Chapter 3.4',
          `The root element of ${this.part} is <${tag.name}>; a 3MF model part must have a <model> root in the core namespace`,
        );
      case 'model':
        if (!core) return 'skip';
        if (local === 'metadata') return this.metadata(tag, this.modelMetadata);
        if (local === 'resources' || local === 'build') return this.section(local);
        return 'skip';
      case 'resources':
        return this.resource(tag, core);
      case 'colorgroup':
        if (tag.uri === NS_MATERIAL && local === 'color') checkColor(tag, this.colorGroup);
        return 'skip';
      case 'object':
        if (core && local === 'mesh') return this.mesh();
        if (core && local === 'components') return this.components();
        if (core && local === 'metadatagroup') return this.metadataGroup();
        return 'skip';
      case 'mesh':
        return core && (local === 'vertices' || local === 'triangles') ? local : 'skip';
      case 'vertices':
        if (!core || local !== 'vertex') return 'skip';
        this.vertex(tag);
        return 'vertex';
      case 'triangles':
        if (!core || local !== 'triangle') return 'skip';
        this.triangle(tag);
        return 'triangle';
      case 'components':
        if (!core || local !== 'component') return 'skip';
        this.object!.components!.push(this.reference(tag, 'component'));
        return 'component';
      case 'build':
        if (core && local === 'item') this.result.build.push(this.reference(tag, 'build item'));
        return core && local === 'item' ? 'item' : 'skip';
      case 'item':
        return core && local === 'metadatagroup' ? this.metadataGroup() : 'skip';
      case 'metadatagroup':
        return core && local === 'metadata' && this.groupMetadata ? this.metadata(tag, this.groupMetadata) : 'skip';
      default:
        return 'skip';
    }
  }

  private model(tag: SaxesTagNS): string {
    const unit = tag.attributes.unit?.value ?? 'millimeter';
    const scale = UNIT_SCALE[unit];
    if (scale === undefined) {
      ruleViolation(
        'Chapter 3.2',
        `The model unit "${unit.slice(0, 40)}" is not one of micron, millimeter, centimeter, inch, foot or meter`,
      );
    }
    this.result.unit = unit;
    this.result.scale = scale;
    const required = tag.attributes.requiredextensions?.value;
    for (const prefix of required ? required.trim().split(/\s+/) : []) {
      const uri = this.scope.resolve(prefix, 1);
      if (uri === undefined)
        ruleViolation(
          'Chapter 2.3',
          `requiredextensions names the prefix "${prefix.slice(0, 40)}", which is not declared`,
        );
      if (!SUPPORTED_REQUIRED.has(uri)) {
        fail(
          'unsupported_extension',
          `The 3MF file requires the extension ${uri.slice(0, 200)}, which this service cannot process without misreading the model.`,
          {
            namespace: uri,
          },
        );
      }
    }
    return 'model';
  }

  private section(local: 'resources' | 'build'): string {
    if (++this.seen[local] > 1) ruleViolation('Chapter 3.4', `${this.part} has more than one <${local}> element`);
    return local;
  }

  private metadata(tag: SaxesTagNS, names: Set<string>): string {
    const name = tag.attributes.name?.value;
    // The conformance suite spells a missing name as name="Undefined"; a name that is absent,
    // empty or that placeholder is treated as missing. Other unknown names are ignored.
    if (name === undefined || WELL_KNOWN_ABSENT_NAMES.has(name.trim().toLowerCase())) {
      ruleViolation('Chapter 3.4.1', 'A <metadata> element has no name (missing metadata name)');
    }
    if (names.has(name)) {
      // Free-text Description is repeated by real producers (the official dodeca_chain_loop_color
      // sample, which PrusaSlicer loads); repeats of it are harmless. Any other repeated name is
      // two conflicting values for one property.
      if (name !== 'Description')
        ruleViolation(
          'Chapter 3.4.1',
          `The metadata name "${name.slice(0, 80)}" occurs twice (duplicated metadata name)`,
        );
      const message = `The 3MF metadata "${name}" appears more than once; the repeats were ignored.`;
      this.warnings.add(modelWarning('metadata_repeated', message, { name }));
    }
    names.add(name);
    return 'metadata'; // its content is text we do not need
  }

  private metadataGroup(): string {
    this.groupMetadata = new Set();
    return 'metadatagroup';
  }

  private resource(tag: SaxesTagNS, core: boolean): string {
    const local = tag.local;
    const interpreted =
      (core && (local === 'object' || local === 'basematerials')) ||
      (tag.uri === NS_MATERIAL && isMaterialResource(local));
    const raw = tag.attributes.id?.value;
    if (!interpreted && raw === undefined) return 'skip';
    const id = raw === undefined ? null : parseIndexString(raw);
    if (id === null) ruleViolation('Chapter 3.4.2', `A <${tag.name}> resource has no valid id attribute`);
    if (--this.budget.resources < 0) {
      fail('too_many_objects', `The 3MF file declares more than ${this.limits.maxObjects} resources.`, {
        limit: this.limits.maxObjects,
      });
    }
    if (this.resources.has(id)) {
      ruleViolation(
        'Chapter 3.4.2',
        `The resource id ${id} is used by more than one resource (<${this.resources.get(id)!.kind}> and <${local}>); resource ids must be unique (duplicated resource id)`,
      );
    }
    if (core && local === 'object') return this.startObject(tag, id);
    const resource: Resource =
      tag.uri === NS_MATERIAL
        ? readMaterialResource(tag, id, this.partExists)
        : { id, kind: core && local === 'basematerials' ? 'basematerials' : 'extension', refs: [] };
    this.resources.set(id, resource);
    if (resource.kind === 'colorgroup') {
      this.colorGroup = id;
      return 'colorgroup';
    }
    return 'skip';
  }

  private startObject(tag: SaxesTagNS, id: number): string {
    const type = tag.attributes.type?.value ?? 'model';
    if (!OBJECT_TYPES.has(type)) {
      ruleViolation(
        'Chapter 4',
        `Object ${id} has type "${type.slice(0, 40)}"; valid object types are model, solidsupport, support, surface and other (invalid object type)`,
      );
    }
    const pid = tag.attributes.pid?.value;
    if (tag.attributes.pindex !== undefined && pid === undefined) {
      ruleViolation(
        'Chapter 4',
        `Object ${id} has a pindex but no pid; pindex is only meaningful with pid (pid is not specified)`,
      );
    }
    const pidValue = pid === undefined ? null : parseIndexString(pid);
    if (pid !== undefined && pidValue === null)
      ruleViolation('Chapter 4', `Object ${id} has pid="${pid.slice(0, 40)}", which is not a resource id`);
    this.resources.set(id, { id, kind: 'object', refs: pidValue === null ? [] : [pidValue] });
    this.object = { id, type: type as ObjectType };
    if (pid !== undefined) this.object.property = { pid, index: tag.attributes.pindex?.value ?? '0' };
    this.result.objects.set(id, this.object);
    return 'object';
  }

  private mesh(): string {
    const object = this.object!;
    if (object.mesh || object.components)
      ruleViolation('Chapter 4', `Object ${object.id} has more than one <mesh> or <components> element`);
    object.mesh = {
      vertices: new Float64Array(3 * 64),
      vertexCount: 0,
      triangles: new Uint32Array(3 * 64),
      triangleCount: 0,
    };
    return 'mesh';
  }

  private components(): string {
    const object = this.object!;
    if (object.mesh || object.components)
      ruleViolation('Chapter 4', `Object ${object.id} has more than one <mesh> or <components> element`);
    object.components = [];
    return 'components';
  }

  private vertex(tag: SaxesTagNS): void {
    const mesh = this.object!.mesh!;
    if (--this.budget.vertices < 0) {
      fail('too_many_vertices', `The 3MF file has more than ${this.limits.maxVertices} vertices.`, {
        limit: this.limits.maxVertices,
      });
    }
    const o = mesh.vertexCount * 3;
    if (o + 3 > mesh.vertices.length)
      mesh.vertices = grow(mesh.vertices, o + 3 + this.budget.vertices * 3) as Float64Array;
    const a = tag.attributes;
    mesh.vertices[o] = this.coordinate(a.x?.value, 'x', mesh);
    mesh.vertices[o + 1] = this.coordinate(a.y?.value, 'y', mesh);
    mesh.vertices[o + 2] = this.coordinate(a.z?.value, 'z', mesh);
    mesh.vertexCount++;
  }

  private coordinate(value: string | undefined, axis: string, mesh: MeshData): number {
    const where = `vertex ${mesh.vertexCount} of object ${this.object!.id}`;
    if (value === undefined) ruleViolation('Chapter 4.1.1', `${where} has no ${axis} coordinate`);
    const v = parseNumberString(value);
    if (v === null) {
      fail(
        'invalid_number',
        `The ${axis} coordinate of ${where} is "${value.slice(0, 40)}", which is not a number (3MF numbers have no spaces or other characters).`,
        {
          object: this.object!.id,
        },
      );
    }
    if (!Number.isFinite(v))
      fail('non_finite_vertex', `The ${axis} coordinate of ${where} is not finite.`, { object: this.object!.id });
    return v;
  }

  private triangle(tag: SaxesTagNS): void {
    const mesh = this.object!.mesh!;
    if (--this.budget.triangles < 0) {
      fail('too_many_triangles', `The 3MF file has more than ${this.limits.maxTriangles} triangles.`, {
        limit: this.limits.maxTriangles,
      });
    }
    const o = mesh.triangleCount * 3;
    if (o + 3 > mesh.triangles.length) {
      mesh.triangles = grow(mesh.triangles, o + 3 + this.budget.triangles * 3) as Uint32Array;
    }
    const a = tag.attributes;
    mesh.triangles[o] = this.vertexIndex(a.v1?.value, mesh);
    mesh.triangles[o + 1] = this.vertexIndex(a.v2?.value, mesh);
    mesh.triangles[o + 2] = this.vertexIndex(a.v3?.value, mesh);
    mesh.triangleCount++;
    if (!this.colours.several && !this.colours.painted) this.useProperties(tag);
  }

  /** The colours a triangle is printed in: its own property, else its object's; painted, whatever the property. */
  private useProperties(tag: SaxesTagNS): void {
    const a = tag.attributes;
    const own = this.object!.property;
    const pid = a.pid?.value ?? own?.pid;
    if (pid !== undefined) {
      const first = a.p1?.value ?? (a.pid ? undefined : own?.index);
      if (first !== undefined) this.colours.use(this.part, pid, first);
      for (const corner of [a.p2?.value, a.p3?.value])
        if (corner !== undefined) this.colours.use(this.part, pid, corner);
    }
    if (a.paint_color?.value || attributeNS(tag, NS_SLIC3RPE, 'mmu_segmentation')) this.colours.painted = true;
  }

  private vertexIndex(value: string | undefined, mesh: MeshData): number {
    const where = `triangle ${mesh.triangleCount} of object ${this.object!.id}`;
    const index = value === undefined ? null : parseIndexString(value);
    if (index === null) ruleViolation('Chapter 4.1.2', `${where} lacks a valid v1, v2 or v3 vertex index`);
    if (index >= mesh.vertexCount) {
      fail(
        'index_out_of_range',
        `The ${where} refers to vertex ${index}, but the object has only ${mesh.vertexCount} vertices.`,
        {
          object: this.object!.id,
          index,
          vertices: mesh.vertexCount,
        },
      );
    }
    return index;
  }

  /** A component or build item: objectid, optional transform and p:path. */
  private reference(tag: SaxesTagNS, what: string): Reference {
    const raw = tag.attributes.objectid?.value;
    const objectId = raw === undefined ? null : parseIndexString(raw);
    if (objectId === null) ruleViolation('Chapter 3.4.3', `A ${what} in ${this.part} has no valid objectid`);
    const transform = tag.attributes.transform?.value;
    const path = attributeNS(tag, NS_PRODUCTION, 'path');
    return {
      objectId,
      transform: transform === undefined ? IDENTITY : parseTransform(transform, `${what} ${objectId}`),
      ...(path !== undefined ? { path } : {}),
    };
  }

  /** Whole-part rules, checked at </model>. */
  private finish(): void {
    if (this.seen.resources === 0)
      ruleViolation('Chapter 3.4', `${this.part} has no <resources> element (missing resources element)`);
    if (this.isRoot && this.seen.build === 0)
      ruleViolation('Chapter 3.4', `${this.part} has no <build> element (missing build element)`);
    for (const item of this.result.build) {
      if (item.path !== undefined) continue; // checked when the other part is read
      const object = this.result.objects.get(item.objectId);
      if (!object) {
        ruleViolation(
          'Chapter 3.4.3.1',
          `A build item refers to object ${item.objectId}, which does not exist in ${this.part} (objectid does not match an object)`,
        );
      }
      if (object.type === 'other') {
        ruleViolation(
          'Chapter 3.4.3.1',
          `A build item refers to object ${item.objectId} of type "other"; such objects must not be build items`,
        );
      }
    }
  }
}

/** Doubles a typed array's capacity, but never beyond `max` elements: what the package budget still allows. */
function grow(a: Float64Array | Uint32Array, max: number): Float64Array | Uint32Array {
  const size = Math.min(a.length * 2, max);
  const next = a instanceof Float64Array ? new Float64Array(size) : new Uint32Array(size);
  next.set(a);
  return next;
}
