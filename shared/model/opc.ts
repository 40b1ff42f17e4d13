// Open Packaging Conventions, the layer under 3MF: relationship parts (_rels/*.rels) say which
// part is the 3D model, and [Content_Types].xml says what each part is. The model part is
// found through _rels/.rels, never by a hard-coded path.
import type { SaxesTagNS } from 'saxes';
import { fail, ruleViolation } from './errors.ts';
import type { ParseLimits } from './limits.ts';
import { type XmlHandler, XmlStream } from './xml.ts';
import { partKey, type ZipPackage } from './zip.ts';

export const REL_3DMODEL = 'http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel';
export const REL_PRINTTICKET = 'http://schemas.microsoft.com/3dmanufacturing/2013/01/printticket';
export const REL_THUMBNAIL = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail';
export const CT_3DMODEL = 'application/vnd.ms-package.3dmanufacturing-3dmodel+xml';
const RELS_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const TYPES_NS = 'http://schemas.openxmlformats.org/package/2006/content-types';
const CONTENT_TYPES = '[Content_Types].xml';

/** Control parts are tiny; anything bigger is not an honest package. */
const MAX_CONTROL_PART = 4 * 1024 * 1024;

export interface Relationship {
  id: string;
  type: string;
  /** Absolute part name the relationship points at, e.g. "/3D/3dmodel.model". */
  target: string;
  /** The .rels part it was declared in. */
  declaredIn: string;
}

export interface ContentTypes {
  defaults: Map<string, string>;
  overrides: Map<string, string>;
}

export interface PackageStructure {
  /** The root 3D model part, e.g. "/3D/3dmodel.model". */
  root: string;
  relationships: Relationship[];
  contentTypes: ContentTypes;
  /** Thumbnails the relationships name but the package lacks (only when tolerated). */
  missingThumbnails: string[];
}

export interface StructureOptions {
  /**
   * A thumbnail relationship whose target is missing is refused, as the 3MF conformance suite requires,
   * unless this is set: PrusaSlicer 2.5's command line writes exactly that, in projects we can identify.
   */
  tolerateMissingThumbnail: boolean;
}

/**
 * Reads [Content_Types].xml and every relationship part (in one pass over the zip), checks the
 * relationships and finds the root 3D model part.
 */
export function readPackageStructure(
  pkg: ZipPackage,
  limits: ParseLimits,
  options: StructureOptions,
): PackageStructure {
  if (!pkg.has('_rels/.rels')) {
    fail(
      'model_part_missing',
      'The 3MF package has no _rels/.rels relationship part, so it does not say where its 3D model is.',
    );
  }
  const relsParts = [...pkg.entries.values()]
    .map((e) => e.name)
    .filter((name) => /(^|\/)_rels\/[^/]*\.rels$/i.test(name));
  const hasTypes = pkg.has(CONTENT_TYPES);
  const parts = pkg.readMany(hasTypes ? [...relsParts, CONTENT_TYPES] : relsParts, MAX_CONTROL_PART);
  const relationships = relsParts.flatMap((name) => readRelationships(name, parts.get(name)!, limits));
  const missingThumbnails: string[] = [];
  const root = checkRelationships(pkg, relationships, (rel) => {
    const tolerated = options.tolerateMissingThumbnail && rel.type === REL_THUMBNAIL;
    if (tolerated) missingThumbnails.push(rel.target);
    return tolerated;
  });
  if (!hasTypes)
    ruleViolation('Chapter 2.1', 'The package has no [Content_Types].xml part, which every OPC package must have');
  return { root, relationships, contentTypes: readContentTypes(parts.get(CONTENT_TYPES)!, limits), missingThumbnails };
}

function checkRelationships(
  pkg: ZipPackage,
  relationships: Relationship[],
  tolerateMissing: (rel: Relationship) => boolean,
): string {
  const rootModels = relationships.filter(
    (r) => r.declaredIn.toLowerCase() === '_rels/.rels' && r.type === REL_3DMODEL,
  );
  const [rootModel] = rootModels;
  if (!rootModel) {
    fail(
      'model_part_missing',
      'The 3MF package has no relationship to a 3D model part in _rels/.rels (3MF Chapter 2.1: the 3D model part must exist).',
    );
  }
  if (rootModels.length > 1) {
    ruleViolation(
      'Chapter 2.1.2',
      `The package root declares ${rootModels.length} 3D model parts; a 3MF package has exactly one (more than one 3D model part)`,
    );
  }
  for (const rel of relationships) {
    if (pkg.has(rel.target) || tolerateMissing(rel)) continue;
    if (rel.type === REL_3DMODEL) {
      fail(
        'model_part_missing',
        `The 3D model part ${rel.target} named in ${rel.declaredIn} does not exist in the package.`,
        { part: rel.target },
      );
    }
    ruleViolation(
      'Chapter 2.1',
      `The relationship ${rel.id} in ${rel.declaredIn} points to ${rel.target}, which does not exist in the package (relationship to a non-existent part, e.g. a thumbnail)`,
      {
        part: rel.target,
      },
    );
  }
  return rootModel.target;
}

function readRelationships(relsName: string, bytes: Uint8Array, limits: ParseLimits): Relationship[] {
  const source = sourcePartOf(relsName);
  const found: Relationship[] = [];
  parseControlPart(relsName, bytes, limits, (tag, depth) => {
    if (depth === 1 && (tag.local !== 'Relationships' || tag.uri !== RELS_NS)) {
      ruleViolation(
        'Chapter 2.1',
        `The relationship part ${relsName} does not have a <Relationships> root in the OPC relationships namespace`,
      );
    }
    if (depth !== 2 || tag.local !== 'Relationship' || tag.uri !== RELS_NS) return;
    const attr = (name: string) => tag.attributes[name]?.value;
    const id = attr('Id'),
      type = attr('Type'),
      target = attr('Target');
    if (!id || !type || target === undefined) {
      ruleViolation('Chapter 2.1', `A relationship in ${relsName} lacks its Id, Type or Target`);
    }
    if (attr('TargetMode') === 'External' || isExternal(target)) {
      ruleViolation(
        'Chapter 2.1.1',
        `The relationship ${id} in ${relsName} links to the external resource "${target.slice(0, 100)}"; 3MF relationships must point to parts inside the package (link to external)`,
      );
    }
    found.push({ id, type, target: resolveTarget(source, target), declaredIn: relsName });
  });
  const tickets = found.filter((r) => r.type === REL_PRINTTICKET).length;
  if (tickets > 1) {
    ruleViolation(
      'Chapter 2.1.4',
      `${relsName} declares ${tickets} print tickets; a model part may have at most one (more than one print ticket)`,
    );
  }
  const ids = new Set<string>();
  for (const rel of found) {
    if (ids.has(rel.id)) ruleViolation('Chapter 2.1', `The relationship Id ${rel.id} occurs twice in ${relsName}`);
    ids.add(rel.id);
  }
  return found;
}

function readContentTypes(bytes: Uint8Array, limits: ParseLimits): ContentTypes {
  const types: ContentTypes = { defaults: new Map(), overrides: new Map() };
  parseControlPart(CONTENT_TYPES, bytes, limits, (tag, depth) => {
    if (depth !== 2 || tag.uri !== TYPES_NS) return;
    const type = tag.attributes.ContentType?.value ?? '';
    if (tag.local === 'Default') types.defaults.set((tag.attributes.Extension?.value ?? '').toLowerCase(), type);
    if (tag.local === 'Override') types.overrides.set(partKey(tag.attributes.PartName?.value ?? ''), type);
  });
  return types;
}

export function contentTypeOf(types: ContentTypes, part: string): string | undefined {
  const override = types.overrides.get(partKey(part));
  if (override !== undefined) return override;
  const dot = part.lastIndexOf('.');
  return dot < 0 ? undefined : types.defaults.get(part.slice(dot + 1).toLowerCase());
}

/** The relationship part that belongs to a part: /3D/a.model -> 3D/_rels/a.model.rels. */
export function relsPartFor(part: string): string {
  const name = part.replace(/^\/+/, '');
  const slash = name.lastIndexOf('/');
  return `${name.slice(0, slash + 1)}_rels/${name.slice(slash + 1)}.rels`;
}

/** Inverse of relsPartFor; "_rels/.rels" belongs to the package root "/". */
function sourcePartOf(relsName: string): string {
  const match = /^(.*?)_rels\/([^/]*)\.rels$/i.exec(relsName.replace(/^\/+/, ''));
  return match ? `/${match[1]}${match[2]}` : '/';
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || target.startsWith('\\\\');
}

/** Resolves a relationship target against its source part, as a URI reference. */
export function resolveTarget(source: string, target: string): string {
  const base = target.startsWith('/') ? [] : source.split('/').slice(0, -1);
  const segments = [...base];
  for (const segment of target.split(/[?#]/)[0]!.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.filter((s) => s !== '').join('/')}`;
}

function parseControlPart(
  name: string,
  bytes: Uint8Array,
  limits: ParseLimits,
  open: (tag: SaxesTagNS, depth: number) => void,
): void {
  const handler: XmlHandler = { open, close: () => undefined };
  const xml = new XmlStream(name, limits, handler);
  xml.write(bytes);
  xml.end();
}
