// PrusaSlicer projects. PrusaSlicer saves every object as one 3MF mesh whose triangles are cut into
// volumes by Metadata/Slic3r_PE_model.config (`<volume firstid lastid>`, triangle index ranges, with a
// `volume_type`). Only model parts are material: modifiers, support blockers and support enforcers are
// helper shapes that change settings inside them, and negative volumes are cut away from the parts. A
// plain 3MF reader would print them all solid, so they are told apart here (see docs/model-files.md).
//
// The settings a project carries (per object, per volume, per modifier, per layer range, the whole print
// profile) are the shopper's, not the shop's: they are ignored, and a warning names them.
import type { SaxesTagNS } from 'saxes';
import { fail } from '../errors.ts';
import type { ParseLimits } from '../limits.ts';
import { parseIndexString } from '../number.ts';
import { type ModelWarning, modelWarning } from '../warnings.ts';
import { XmlStream } from '../xml.ts';
import type { ZipPackage } from '../zip.ts';
import type { MeshData, ModelPart } from './model-part.ts';

export const MODEL_CONFIG = 'Metadata/Slic3r_PE_model.config';
const PRINT_CONFIG = 'Metadata/Slic3r_PE.config';
/** Per-object data kept in their own parts, named as the setting a shopper would recognise. */
const OBJECT_SETTING_PARTS: Record<string, string> = {
  'Metadata/Slic3r_PE_layer_heights_profile.txt': 'layer_height_profile',
  'Metadata/Prusa_Slicer_layer_config_ranges.xml': 'layer_config_ranges',
  'Metadata/Slic3r_PE_layer_config_ranges.txt': 'layer_config_ranges',
};
/** Volume metadata that describes the volume itself rather than slicer settings. */
const VOLUME_FACTS = /^(name|volume_type|modifier|matrix|source_.*)$/;
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

export type VolumeType = 'part' | 'negative' | 'modifier' | 'support_blocker' | 'support_enforcer';

const VOLUME_TYPES: Record<string, VolumeType> = {
  ModelPart: 'part',
  NegativeVolume: 'negative',
  ParameterModifier: 'modifier',
  SupportBlocker: 'support_blocker',
  SupportEnforcer: 'support_enforcer',
};

/** Volumes that are neither printed nor cut away: helper shapes that only steer the slicer. */
type IgnoredVolumeType = Exclude<VolumeType, 'part' | 'negative'>;

const IGNORED_LABEL: Record<IgnoredVolumeType, [string, string]> = {
  modifier: ['modifier', 'modifiers'],
  support_blocker: ['support blocker', 'support blockers'],
  support_enforcer: ['support enforcer', 'support enforcers'],
};

interface VolumeConfig {
  first: number;
  last: number;
  type: VolumeType;
  /** The extruder it prints with; 0: its object's. */
  extruder: number;
}

interface ObjectConfig {
  volumes: VolumeConfig[];
  /** The extruder its parts print with unless they name one; 0: the first. */
  extruder: number;
}

export interface ProjectConfig {
  objects: Map<number, ObjectConfig>;
  /** Setting keys found per object, per volume and in per-object parts. */
  settings: Set<string>;
  /** The extruders the printed parts are assigned to (1 for a single-material project). */
  extruders: Set<number>;
}

/** Is this package a PrusaSlicer project (it carries PrusaSlicer's model configuration)? */
export function isPrusaSlicerProject(pkg: ZipPackage): boolean {
  return pkg.has(MODEL_CONFIG);
}

/** Reads Metadata/Slic3r_PE_model.config (streamed, size-capped). */
export function readProjectConfig(pkg: ZipPackage, limits: ParseLimits): ProjectConfig {
  const reader = new ConfigReader();
  const xml = new XmlStream(MODEL_CONFIG, limits, reader);
  let size = 0;
  pkg.stream(MODEL_CONFIG, (chunk) => {
    size += chunk.length;
    if (size > MAX_CONFIG_BYTES) {
      const message = `The 3MF part ${MODEL_CONFIG} is larger than the ${MAX_CONFIG_BYTES} bytes allowed for it.`;
      fail('inflated_too_large', message, { part: MODEL_CONFIG, limit: MAX_CONFIG_BYTES });
    }
    xml.write(chunk);
  });
  xml.end();
  for (const [part, setting] of Object.entries(OBJECT_SETTING_PARTS))
    if (pkg.has(part)) reader.config.settings.add(setting);
  for (const object of reader.config.objects.values()) {
    const own = object.extruder || 1;
    const parts = object.volumes.filter((v) => v.type === 'part');
    if (parts.length === 0) reader.config.extruders.add(own);
    for (const v of parts) reader.config.extruders.add(v.extruder || own);
  }
  return reader.config;
}

class ConfigReader {
  readonly config: ProjectConfig = { objects: new Map(), settings: new Set(), extruders: new Set() };
  private object: ObjectConfig | undefined;
  private objectId = 0;
  private volume: VolumeConfig | undefined;

  open(tag: SaxesTagNS, depth: number): void {
    const attr = (name: string) => tag.attributes[name]?.value;
    if (depth === 2 && tag.local === 'object') this.startObject(attr('id'));
    else if (depth === 3 && tag.local === 'volume' && this.object) this.startVolume(attr('firstid'), attr('lastid'));
    else if (tag.local === 'metadata' && this.object) {
      this.metadata(depth, attr('type'), attr('key') ?? '', attr('value') ?? '');
    }
  }

  close(tag: SaxesTagNS, depth: number): void {
    if (depth === 2 && tag.local === 'object') this.object = undefined;
    if (depth === 3 && tag.local === 'volume') this.volume = undefined;
  }

  private startObject(rawId: string | undefined): void {
    const id = rawId === undefined ? null : parseIndexString(rawId);
    if (id === null) invalid(`an <object> has no valid id`);
    if (this.config.objects.has(id)) invalid(`object ${id} is described twice`);
    this.object = { volumes: [], extruder: 0 };
    this.objectId = id;
    this.config.objects.set(id, this.object);
  }

  private startVolume(rawFirst: string | undefined, rawLast: string | undefined): void {
    const first = rawFirst === undefined ? null : parseIndexString(rawFirst);
    const last = rawLast === undefined ? null : parseIndexString(rawLast);
    if (first === null || last === null || last < first) {
      const range = `"${String(rawFirst).slice(0, 20)}".."${String(rawLast).slice(0, 20)}"`;
      invalid(`a volume of object ${this.objectId} has the triangle range ${range}`);
    }
    this.volume = { first, last, type: 'part', extruder: 0 };
    this.object!.volumes.push(this.volume);
  }

  /** Later keys win, as in PrusaSlicer: old files say modifier=1, newer ones volume_type. */
  private metadata(depth: number, type: string | undefined, key: string, value: string): void {
    if (depth === 3 && type === 'object') {
      if (key !== 'name') this.config.settings.add(key.slice(0, 100));
      if (key === 'extruder') this.object!.extruder = extruderOf(value);
      return;
    }
    const volume = this.volume;
    if (depth !== 4 || type !== 'volume' || !volume) return;
    if (key === 'extruder') volume.extruder = extruderOf(value);
    if (key === 'volume_type') {
      const kind = VOLUME_TYPES[value];
      const index = this.object!.volumes.length - 1;
      if (!kind)
        invalid(`volume ${index} of object ${this.objectId} has the unknown volume_type "${value.slice(0, 40)}"`);
      volume.type = kind;
    } else if (key === 'modifier') {
      if (value === '1') volume.type = 'modifier';
    } else if (!VOLUME_FACTS.test(key)) {
      this.config.settings.add(key.slice(0, 100));
    }
  }
}

/** An extruder number as PrusaSlicer writes it (1 and up; 0 for "the object's"); anything else reads as 0. */
const extruderOf = (value: string): number => Math.min(parseIndexString(value) ?? 0, 256);

function invalid(what: string): never {
  const message = `The PrusaSlicer project data (${MODEL_CONFIG}) is inconsistent: ${what}.`;
  return fail('project_config_invalid', message, { part: MODEL_CONFIG });
}

/**
 * Splits each configured object's triangles by volume type: parts stay the object's mesh, negative
 * volumes become its `negative` mesh, helper volumes are dropped. Triangles outside every volume
 * belong to no volume and are dropped too, as PrusaSlicer does. Returns the warnings.
 */
export function applyProjectConfig(root: ModelPart, config: ProjectConfig): ModelWarning[] {
  const ignored = new Map<IgnoredVolumeType, number>();
  let negatives = 0;
  for (const [id, objectConfig] of config.objects) {
    const object = root.objects.get(id);
    if (!object?.mesh || objectConfig.volumes.length === 0) continue;
    const mesh = object.mesh;
    for (const [index, volume] of objectConfig.volumes.entries()) {
      if (volume.last >= mesh.triangleCount) {
        const span = `triangles ${volume.first} to ${volume.last}`;
        invalid(`volume ${index} of object ${id} spans ${span}, but the object has ${mesh.triangleCount}`);
      }
      if (volume.type === 'negative') negatives++;
      else if (volume.type !== 'part') ignored.set(volume.type, (ignored.get(volume.type) ?? 0) + 1);
    }
    const negative = selectTriangles(mesh, objectConfig.volumes, 'negative');
    object.mesh = selectTriangles(mesh, objectConfig.volumes, 'part');
    if (negative.triangleCount > 0) object.negative = compactVertices(negative);
  }
  const warnings: ModelWarning[] = [];
  for (const [type, count] of ignored) {
    const [one, many] = IGNORED_LABEL[type];
    const what = `${count} ${count === 1 ? `${one} was` : `${many} were`}`;
    const message = `The project's ${what} not printed: they only steer the slicer's settings and supports, and the shop's settings apply.`;
    warnings.push(modelWarning('volume_ignored', message, { volume_type: type, count }));
  }
  if (negatives > 0) {
    const what = `${negatives} negative volume${negatives === 1 ? ' is' : 's are'}`;
    const message = `The project's ${what} cut away from the parts when slicing; the measurements describe the parts before the cut.`;
    warnings.push(modelWarning('negative_volume_subtracted', message, { count: negatives }));
  }
  if (config.settings.size > 0) {
    const names = [...config.settings].sort();
    warnings.push(
      modelWarning(
        'settings_ignored',
        `The project's own slicer settings (${names.join(', ')}) were ignored; the shop's settings apply.`,
        { settings: names, part: MODEL_CONFIG },
      ),
    );
  }
  return warnings;
}

/** The print profile saved with a project, if any: ignored, with a warning. */
export function printConfigWarning(pkg: ZipPackage): ModelWarning[] {
  if (!pkg.has(PRINT_CONFIG)) return [];
  const message = `The print, filament and printer settings saved with the project (${PRINT_CONFIG}) were ignored; the shop's settings apply.`;
  return [modelWarning('settings_ignored', message, { part: PRINT_CONFIG })];
}

function selectTriangles(mesh: MeshData, volumes: VolumeConfig[], type: VolumeType): MeshData {
  let count = 0;
  for (const v of volumes) if (v.type === type) count += v.last - v.first + 1;
  const triangles = new Uint32Array(count * 3);
  let o = 0;
  for (const v of volumes) {
    if (v.type !== type) continue;
    triangles.set(mesh.triangles.subarray(v.first * 3, (v.last + 1) * 3), o);
    o += (v.last - v.first + 1) * 3;
  }
  return { vertices: mesh.vertices, vertexCount: mesh.vertexCount, triangles, triangleCount: count };
}

/** Keeps only the vertices the triangles use, so a small negative volume does not carry the whole object. */
function compactVertices(mesh: MeshData): MeshData {
  const remap = new Int32Array(mesh.vertexCount).fill(-1);
  let next = 0;
  const t = mesh.triangles;
  // t holds triangleCount triangles of vertices below vertexCount, so every read is in range.
  for (let i = 0; i < mesh.triangleCount * 3; i++) {
    const v = t[i]!;
    if (remap[v]! < 0) remap[v] = next++;
    t[i] = remap[v]!;
  }
  const vertices = new Float64Array(next * 3);
  for (let v = 0; v < mesh.vertexCount; v++) {
    const r = remap[v]!;
    if (r >= 0) vertices.set(mesh.vertices.subarray(v * 3, v * 3 + 3), r * 3);
  }
  return { vertices, vertexCount: next, triangles: t, triangleCount: mesh.triangleCount };
}
