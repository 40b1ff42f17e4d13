// Resource bookkeeping and the Materials & Properties extension rules. We never use colours or
// textures (quotes depend on shape), but a file that breaks these rules is not a valid 3MF, and
// the conformance suite expects it refused. Cross-references are checked once the whole
// <resources> element has been read, so declaration order does not matter.
import type { SaxesTagNS } from 'saxes';
import { ruleViolation } from '../errors.ts';
import { parseIndexString } from '../number.ts';

export type ResourceKind =
  | 'object'
  | 'basematerials'
  | 'colorgroup'
  | 'texture2d'
  | 'texture2dgroup'
  | 'compositematerials'
  | 'multiproperties'
  | 'displayproperties'
  | 'extension';

export interface Resource {
  id: number;
  kind: ResourceKind;
  /** Resources this one points at: texid, matid, pids, or an object's pid. */
  refs: number[];
}

const MATERIAL_KINDS: Record<string, ResourceKind> = {
  colorgroup: 'colorgroup',
  texture2d: 'texture2d',
  texture2dgroup: 'texture2dgroup',
  compositematerials: 'compositematerials',
  multiproperties: 'multiproperties',
  pbspeculardisplayproperties: 'displayproperties',
  pbmetallicdisplayproperties: 'displayproperties',
  pbspeculartexturedisplayproperties: 'displayproperties',
  pbmetallictexturedisplayproperties: 'displayproperties',
  translucentdisplayproperties: 'displayproperties',
};

const TEXTURE_TYPES = new Set(['image/png', 'image/jpeg', 'image/ktx2']);
const SRGB = /^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/;

const attr = (tag: SaxesTagNS, name: string): string | undefined => tag.attributes[name]?.value;

/** Reads a materials-namespace resource element's attributes and checks the rules that need no lookup. */
export function readMaterialResource(tag: SaxesTagNS, id: number, partExists: (path: string) => boolean): Resource {
  const kind = MATERIAL_KINDS[tag.local] ?? 'extension';
  const refs: number[] = [];
  const where = `<${tag.local}> ${id}`;
  if (kind === 'texture2d') {
    const path = attr(tag, 'path');
    if (!path)
      ruleViolation('Materials Extension Chapter 6', `${where} has no path attribute (texture2d missing path)`);
    const type = attr(tag, 'contenttype') ?? '';
    if (!TEXTURE_TYPES.has(type)) {
      ruleViolation(
        'Materials Extension Chapter 6',
        `${where} has content type "${type.slice(0, 40)}"; a texture must be image/png or image/jpeg (invalid content type)`,
      );
    }
    if (!partExists(path))
      ruleViolation(
        'Materials Extension Chapter 6',
        `${where} points to ${path.slice(0, 100)}, which does not exist in the package`,
      );
  } else if (kind === 'texture2dgroup') {
    refs.push(requiredIndex(tag, 'texid', where, 'Materials Extension Chapter 3', 'texture2dgroup missing texid'));
  } else if (kind === 'compositematerials') {
    refs.push(requiredIndex(tag, 'matid', where, 'Materials Extension Chapter 4', 'compositematerials missing matid'));
    if (!attr(tag, 'matindices'))
      ruleViolation(
        'Materials Extension Chapter 4',
        `${where} has no matindices attribute (compositematerials missing matindices)`,
      );
  } else if (kind === 'multiproperties') {
    const pids = attr(tag, 'pids');
    if (!pids)
      ruleViolation('Materials Extension Chapter 5', `${where} has no pids attribute (multiproperties missing pids)`);
    for (const pid of pids.trim().split(/\s+/)) refs.push(index(pid, where, 'pids'));
  }
  return { id, kind, refs };
}

/** A <color> inside a <colorgroup> must carry an sRGB value. */
export function checkColor(tag: SaxesTagNS, group: number): void {
  const color = attr(tag, 'color');
  if (color === undefined)
    ruleViolation(
      'Materials Extension Chapter 2',
      `A <color> in colorgroup ${group} has no color value (missing color value)`,
    );
  if (!SRGB.test(color))
    ruleViolation(
      'Materials Extension Chapter 2',
      `A <color> in colorgroup ${group} has "${color.slice(0, 20)}", which is not an sRGB #RRGGBB or #RRGGBBAA value`,
    );
}

export function isMaterialResource(local: string): boolean {
  return local in MATERIAL_KINDS;
}

/** Cross-reference rules, checked when </resources> closes. */
export function validateResources(resources: Map<number, Resource>): void {
  for (const r of resources.values()) {
    // readMaterialResource always records the texid or matid these two kinds require; an object's pid is optional.
    const [ref] = r.refs;
    if (r.kind === 'texture2dgroup') expectKind(resources, r, ref!, ['texture2d'], 'texid');
    if (r.kind === 'compositematerials') expectKind(resources, r, ref!, ['basematerials'], 'matid');
    if (r.kind === 'multiproperties') validateMultiproperties(resources, r);
    if (r.kind === 'object' && ref !== undefined && !resources.has(ref)) {
      ruleViolation('Chapter 4.1', `Object ${r.id} has pid ${ref}, which is not a resource in this model`);
    }
  }
}

function validateMultiproperties(resources: Map<number, Resource>, r: Resource): void {
  const kinds = r.refs.map((pid) => {
    const target = resources.get(pid);
    if (!target)
      ruleViolation(
        'Materials Extension Chapter 5',
        `multiproperties ${r.id} lists pid ${pid}, which is not a resource in this model`,
      );
    return target.kind;
  });
  if (kinds.includes('multiproperties')) {
    ruleViolation(
      'Materials Extension Chapter 5',
      `multiproperties ${r.id} refers to another multiproperties; pids must not reference a multiproperties`,
    );
  }
  const materials = kinds.filter((k) => k === 'basematerials' || k === 'compositematerials').length;
  if (materials > 1) {
    ruleViolation(
      'Materials Extension Chapter 5',
      `multiproperties ${r.id} refers to more than one material group (basematerials or compositematerials); at most one is allowed (multiple reference)`,
    );
  }
  if (kinds.filter((k) => k === 'colorgroup').length > 1) {
    ruleViolation(
      'Materials Extension Chapter 5',
      `multiproperties ${r.id} refers to more than one colorgroup; at most one is allowed (multiple reference)`,
    );
  }
}

function expectKind(
  resources: Map<number, Resource>,
  r: Resource,
  ref: number,
  kinds: ResourceKind[],
  name: string,
): void {
  const target = resources.get(ref);
  if (!target || !kinds.includes(target.kind)) {
    ruleViolation(
      'Materials Extension',
      `${r.kind} ${r.id} has ${name}="${ref}", which is not a ${kinds.join(' or ')} resource (${name} is not ${kinds.join('/')})`,
    );
  }
}

function requiredIndex(tag: SaxesTagNS, name: string, where: string, rule: string, label: string): number {
  const value = attr(tag, name);
  if (value === undefined) ruleViolation(rule, `${where} has no ${name} attribute (${label})`);
  return index(value, where, name);
}

function index(value: string, where: string, name: string): number {
  const n = parseIndexString(value);
  if (n === null)
    ruleViolation('Materials Extension', `${where} has ${name}="${value.slice(0, 40)}", which is not a resource id`);
  return n;
}
