// Writes PrusaSlicer project 3MFs the way PrusaSlicer 2.5 saves them: one <object> whose mesh holds every
// volume's triangles in turn, and Metadata/Slic3r_PE_model.config cutting that mesh into volumes by
// triangle ranges, each with its volume_type (or, as before 2.4, modifier=1) and its own settings.

import { strToU8, zipSync } from 'fflate';
import { BOX_TRIANGLES } from './meshes.ts';

export type Box = [x0: number, y0: number, z0: number, x1: number, y1: number, z1: number];

export interface ProjectVolume {
  box: Box;
  /** volume_type as PrusaSlicer writes it; 'legacy-modifier' writes only modifier=1, as old versions did. */
  type: 'ModelPart' | 'NegativeVolume' | 'ParameterModifier' | 'SupportBlocker' | 'SupportEnforcer' | 'legacy-modifier';
  settings?: Record<string, string>;
}

export interface Project {
  volumes: ProjectVolume[];
  /** Per-object settings (metadata type="object"). */
  objectSettings?: Record<string, string>;
  /** Extra package parts, e.g. Metadata/Slic3r_PE.config. */
  parts?: Record<string, string>;
}

function boxCorners([x0, y0, z0, x1, y1, z1]: Box): number[][] {
  return [
    [x0, y0, z0],
    [x1, y0, z0],
    [x1, y1, z0],
    [x0, y1, z0],
    [x0, y0, z1],
    [x1, y0, z1],
    [x1, y1, z1],
    [x0, y1, z1],
  ];
}

const meta = (type: 'object' | 'volume', key: string, value: string) =>
  `   <metadata type="${type}" key="${key}" value="${value}"/>\n`;

export function projectThreeMf(project: Project): Uint8Array {
  let vertices = '',
    triangles = '',
    volumes = '';
  project.volumes.forEach((volume, i) => {
    const firstVertex = i * 8,
      firstTriangle = i * 12;
    vertices += boxCorners(volume.box)
      .map(([x, y, z]) => `     <vertex x="${x}" y="${y}" z="${z}"/>\n`)
      .join('');
    triangles += BOX_TRIANGLES.map(
      ([a, b, c]) => `     <triangle v1="${a + firstVertex}" v2="${b + firstVertex}" v3="${c + firstVertex}"/>\n`,
    ).join('');
    volumes +=
      `  <volume firstid="${firstTriangle}" lastid="${firstTriangle + 11}">\n` +
      meta('volume', 'name', `volume ${i + 1}`) +
      (volume.type === 'legacy-modifier'
        ? meta('volume', 'modifier', '1')
        : meta('volume', 'volume_type', volume.type)) +
      Object.entries(volume.settings ?? {})
        .map(([k, v]) => meta('volume', k, v))
        .join('') +
      '  </volume>\n';
  });
  const model =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02" xmlns:slic3rpe="http://schemas.slic3r.org/3mf/2017/06">\n' +
    ' <metadata name="slic3rpe:Version3mf">1</metadata>\n <metadata name="Application">PrusaSlicer-2.5.0</metadata>\n' +
    ` <resources>\n  <object id="1" type="model">\n   <mesh>\n    <vertices>\n${vertices}    </vertices>\n    <triangles>\n${triangles}` +
    '    </triangles>\n   </mesh>\n  </object>\n </resources>\n <build>\n  <item objectid="1" transform="1 0 0 0 1 0 0 0 1 0 0 0" printable="1"/>\n </build>\n</model>\n';
  const config =
    '<?xml version="1.0" encoding="UTF-8"?>\n<config>\n <object id="1" instances_count="1">\n' +
    meta('object', 'name', 'project') +
    Object.entries(project.objectSettings ?? {})
      .map(([k, v]) => meta('object', k, v))
      .join('') +
    volumes +
    ' </object>\n</config>\n';
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\n' +
        ' <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\n' +
        ' <Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>\n' +
        ' <Default Extension="png" ContentType="image/png"/>\n</Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\n' +
        ' <Relationship Target="/3D/3dmodel.model" Id="rel-1" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>\n</Relationships>',
    ),
    '3D/3dmodel.model': strToU8(model),
    'Metadata/Slic3r_PE_model.config': strToU8(config),
  };
  for (const [name, content] of Object.entries(project.parts ?? {})) files[name] = strToU8(content);
  return zipSync(files, { mtime: '2024-01-01T12:00:00Z' });
}

/** OBJ text of an L-shaped prism: the box [0,0,0]-[size,size,height] minus its corner [notch..size]². */
export function notchedPrismObj(size: number, notch: number, height: number): string {
  const outline = [
    [0, 0],
    [size, 0],
    [size, notch],
    [notch, notch],
    [notch, size],
    [0, size],
  ];
  const n = outline.length;
  let text = '';
  for (const z of [0, height]) for (const [x, y] of outline) text += `v ${x} ${y} ${z}\n`;
  // Caps fanned from the reflex corner (index 3), which sees every other corner of the L.
  for (let k = 1; k < n - 1; k++) {
    const a = 3,
      b = (3 + k) % n,
      c = (3 + k + 1) % n;
    text += `f ${a + 1} ${c + 1} ${b + 1}\nf ${a + n + 1} ${b + n + 1} ${c + n + 1}\n`;
  }
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    text += `f ${i + 1} ${j + 1} ${j + n + 1}\nf ${i + 1} ${j + n + 1} ${i + n + 1}\n`;
  }
  return text;
}

/**
 * A two-colour PrusaSlicer project, as a multi-material printer's shopper saves one: two 20 mm cubes side by side,
 * the first printed by extruder 1, the second by extruder 2.
 */
export const TWO_COLOUR_PROJECT: Project = {
  volumes: [
    { box: [0, 0, 0, 20, 20, 20], type: 'ModelPart', settings: { extruder: '1' } },
    { box: [25, 0, 0, 45, 20, 20], type: 'ModelPart', settings: { extruder: '2' } },
  ],
};
