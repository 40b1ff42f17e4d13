// The hostile corpus: files built to make a parser amplify a small upload into a lot of memory (huge XML
// tokens, attribute floods, vertex floods referenced by few bytes, text-format equivalents). 3MFs are a
// few hundred KB on the wire and inflate to hundreds of MB; the text formats cannot be compressed, so
// they are as large as an upload may be. Shared by the tests and by `npm run bench` (bench/hostile.ts).

import { BOX_TRIANGLES } from './meshes.ts';
import { type Piece, zipEntries } from './zip-writer.ts';

export interface HostileCase {
  name: string;
  fileName: string;
  /** The 422 code the upload must be refused with. */
  code: string;
  build(): Uint8Array;
}

const MiB = 1024 * 1024;
const CORE = 'http://schemas.microsoft.com/3dmanufacturing/core/2015/02';

/** `unit` repeated to about `total` bytes, as one piece of about 1 MiB repeated. */
function flood(unit: string, total: number): Piece {
  const perChunk = Math.max(1, Math.floor(MiB / unit.length));
  return { bytes: unit.repeat(perChunk), times: Math.max(1, Math.round(total / (perChunk * unit.length))) };
}

const CUBE_MESH =
  '<mesh><vertices>' +
  [
    [0, 0, 0],
    [10, 0, 0],
    [10, 10, 0],
    [0, 10, 0],
    [0, 0, 10],
    [10, 0, 10],
    [10, 10, 10],
    [0, 10, 10],
  ]
    .map(([x, y, z]) => `<vertex x="${x}" y="${y}" z="${z}"/>`)
    .join('') +
  '</vertices><triangles>' +
  BOX_TRIANGLES.map(([a, b, c]) => `<triangle v1="${a}" v2="${b}" v3="${c}"/>`).join('') +
  '</triangles></mesh>';

/** A 3MF whose model part is the given pieces (XML text and floods), with the usual package parts. */
export function hostile3mf(model: Piece[]): Uint8Array {
  return zipEntries({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>',
    '3D/3dmodel.model': model,
  });
}

const head = `<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="${CORE}">`;
const cubeBody = `<resources><object id="1">${CUBE_MESH}</object></resources><build><item objectid="1"/></build></model>`;

/** A cube 3MF with `flood` inserted between `before` and `after` in its model part. */
const around = (before: string, flooded: Piece, after: string): Uint8Array =>
  hostile3mf([{ bytes: head + before }, flooded, { bytes: after }]);

/**
 * One object, a strip of `n` quads (2n triangles, 2n+2 vertices), placed `instances` times with
 * distinct translations: every instance adds new vertices, so a few KB ask for millions of them.
 */
export function instancingBomb(n: number, instances: number): Uint8Array {
  let vertices = '',
    triangles = '';
  for (let i = 0; i <= n; i++) vertices += `<vertex x="${i}" y="0" z="0"/><vertex x="${i}" y="1" z="${i % 2}"/>`;
  for (let i = 0; i < n; i++) {
    const a = 2 * i;
    triangles += `<triangle v1="${a}" v2="${a + 2}" v3="${a + 1}"/><triangle v1="${a + 1}" v2="${a + 2}" v3="${a + 3}"/>`;
  }
  let components = '';
  for (let k = 0; k < instances; k++)
    components += `<component objectid="1" transform="1 0 0 0 1 0 0 0 1 0 ${2 * k} 0"/>`;
  return hostile3mf([
    {
      bytes:
        `${head}<resources><object id="1"><mesh><vertices>${vertices}</vertices><triangles>${triangles}</triangles></mesh></object>` +
        `<object id="2"><components>${components}</components></object></resources><build><item objectid="2"/></build></model>`,
    },
  ]);
}

/**
 * The heaviest model the caps accept: a closed torus (n × m quads) placed `instances` times side by side,
 * 4,000 triangles each; 2,490 copies make 9.96 million triangles from a 100 KB file.
 */
export function largestAccepted3mf(n = 50, m = 40, instances = 2_490): Uint8Array {
  let vertices = '',
    triangles = '';
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      const u = (2 * Math.PI * i) / n,
        v = (2 * Math.PI * j) / m,
        r = 10 + 3 * Math.cos(v);
      vertices += `<vertex x="${(r * Math.cos(u)).toFixed(4)}" y="${(r * Math.sin(u)).toFixed(4)}" z="${(3 + 3 * Math.sin(v)).toFixed(4)}"/>`;
      const a = i * m + j,
        b = ((i + 1) % n) * m + j,
        c = ((i + 1) % n) * m + ((j + 1) % m),
        d = i * m + ((j + 1) % m);
      triangles += `<triangle v1="${a}" v2="${b}" v3="${c}"/><triangle v1="${a}" v2="${c}" v3="${d}"/>`;
    }
  }
  let components = '';
  for (let k = 0; k < instances; k++)
    components += `<component objectid="1" transform="1 0 0 0 1 0 0 0 1 ${30 * (k % 50)} ${30 * Math.floor(k / 50)} 0"/>`;
  return hostile3mf([
    {
      bytes:
        `${head}<resources><object id="1"><mesh><vertices>${vertices}</vertices><triangles>${triangles}</triangles></mesh></object>` +
        `<object id="2"><components>${components}</components></object></resources><build><item objectid="2"/></build></model>`,
    },
  ]);
}

const ascii = (s: string) => new TextEncoder().encode(s);

/** Text bytes: `before`, `unit` repeated to about `total` bytes, `after`. */
function textFlood(before: string, unit: string, total: number, after: string): Uint8Array {
  const count = Math.floor(total / unit.length);
  const out = new Uint8Array(before.length + count * unit.length + after.length);
  out.set(ascii(before));
  const chunk = ascii(unit.repeat(Math.max(1, Math.floor(MiB / unit.length))));
  let o = before.length;
  const end = before.length + count * unit.length;
  while (o < end) {
    const n = Math.min(chunk.length, end - o);
    out.set(n === chunk.length ? chunk : chunk.subarray(0, n), o);
    o += n;
  }
  out.set(ascii(after), end);
  return out;
}

const CUBE_OBJ_VERTICES = 'v 0 0 0\nv 10 0 0\nv 10 10 0\nv 0 10 0\n';

export const HOSTILE_CASES: HostileCase[] = [
  {
    name: '3mf_attribute_500mb',
    fileName: 'attribute.3mf',
    code: 'xml_token_too_large',
    build: () =>
      around(
        '<resources><object id="1" name="',
        flood('A', 500 * MiB),
        `">${CUBE_MESH}</object></resources><build><item objectid="1"/></build></model>`,
      ),
  },
  {
    name: '3mf_attribute_300mb',
    fileName: 'attribute-300.3mf',
    code: 'xml_token_too_large',
    build: () => around('<metadata name="Title" x="', flood('B', 300 * MiB), `">t</metadata>${cubeBody}`),
  },
  {
    name: '3mf_text_node_500mb',
    fileName: 'text-node.3mf',
    code: 'xml_token_too_large',
    build: () => around('<metadata name="Description">', flood('C', 500 * MiB), `</metadata>${cubeBody}`),
  },
  {
    name: '3mf_whitespace_text_500mb',
    fileName: 'whitespace.3mf',
    code: 'xml_token_too_large',
    build: () =>
      around(
        '<resources>',
        flood(' \n', 500 * MiB),
        `<object id="1">${CUBE_MESH}</object></resources><build><item objectid="1"/></build></model>`,
      ),
  },
  {
    name: '3mf_comment_500mb',
    fileName: 'comment.3mf',
    code: 'xml_token_too_large',
    build: () => around('<!--', flood('D', 500 * MiB), `-->${cubeBody}`),
  },
  {
    name: '3mf_element_name_500mb',
    fileName: 'element-name.3mf',
    code: 'xml_token_too_large',
    build: () =>
      around(
        '<resources><',
        flood('e', 500 * MiB),
        `/><object id="1">${CUBE_MESH}</object></resources><build><item objectid="1"/></build></model>`,
      ),
  },
  {
    name: '3mf_entity_name_500mb',
    fileName: 'entity.3mf',
    code: 'xml_token_too_large',
    build: () => around('<metadata name="Title">&', flood('f', 500 * MiB), `;</metadata>${cubeBody}`),
  },
  {
    name: '3mf_many_attributes',
    fileName: 'attributes.3mf',
    code: 'xml_too_many_attributes',
    build: () =>
      around(
        '<resources><object id="1" ',
        flood('a="" ', 500 * MiB),
        `>${CUBE_MESH}</object></resources><build><item objectid="1"/></build></model>`,
      ),
  },
  {
    name: '3mf_deep_nesting',
    fileName: 'deep.3mf',
    code: 'xml_too_deep',
    build: () => around('<resources>', flood('<a>', 300 * MiB), '</resources></model>'),
  },
  {
    name: '3mf_vertex_flood',
    fileName: 'vertices.3mf',
    code: 'too_many_vertices',
    build: () =>
      around(
        '<resources><object id="1"><mesh><vertices>',
        flood('<vertex x="0" y="0" z="0"/>', 500 * MiB),
        '</vertices><triangles/></mesh></object></resources><build><item objectid="1"/></build></model>',
      ),
  },
  {
    name: '3mf_triangle_flood',
    fileName: 'triangles.3mf',
    code: 'too_many_triangles',
    build: () =>
      around(
        '<resources><object id="1"><mesh><vertices><vertex x="0" y="0" z="0"/><vertex x="1" y="0" z="0"/><vertex x="0" y="1" z="0"/></vertices><triangles>',
        flood('<triangle v1="0" v2="1" v3="2"/>', 500 * MiB),
        '</triangles></mesh></object></resources><build><item objectid="1"/></build></model>',
      ),
  },
  {
    name: '3mf_instanced_vertices',
    fileName: 'instances.3mf',
    code: 'too_many_vertices',
    build: () => instancingBomb(1000, 20_000),
  },
  {
    name: 'obj_face_flood',
    fileName: 'faces.obj',
    code: 'too_many_triangles',
    build: () => textFlood(CUBE_OBJ_VERTICES, 'f 1 2 3\n', 190 * MiB, ''),
  },
  {
    name: 'obj_huge_token',
    fileName: 'token.obj',
    code: 'obj_syntax',
    build: () => textFlood(`${CUBE_OBJ_VERTICES}v 1 1 `, '1', 190 * MiB, '\nf 1 2 3\n'),
  },
  {
    // The name is skipped without being read into a string; the single triangle left is an open surface.
    name: 'stl_ascii_huge_name',
    fileName: 'name.stl',
    code: 'mesh_not_closed',
    build: () =>
      textFlood(
        'solid ',
        'n',
        190 * MiB,
        '\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n',
      ),
  },
  {
    // 2 million copies of one triangle: within the caps (ASCII STL spends ~90 bytes a triangle), refused as open.
    name: 'stl_ascii_facet_flood',
    fileName: 'facets.stl',
    code: 'mesh_not_closed',
    build: () =>
      textFlood(
        'solid x\n',
        'facet normal 0 0 1 outer loop vertex 0 0 0 vertex 1 0 0 vertex 0 1 0 endloop endfacet\n',
        190 * MiB,
        'endsolid x\n',
      ),
  },
];

export function hostileCase(name: string): HostileCase {
  const found = HOSTILE_CASES.find((c) => c.name === name);
  if (!found) throw new Error(`no hostile case ${name}`);
  return found;
}

/**
 * The slowest 3MF the compression rule lets through (docs/limits.md, "Fair parsing"): `xmlBytes` of identical
 * `<vertex>` elements (which compress about 1000 to 1), next to a stored part of random bytes that makes the file
 * large enough for its ratio to stay under the limit. Every byte of the XML is read; with no triangles it is then
 * refused. A stand-in for an attacker who knows the rule.
 */
export function slowWithinRatio3mf(xmlBytes = 60 * MiB, ratio = 45): Uint8Array {
  const padding = new Uint8Array(Math.ceil(xmlBytes / ratio));
  for (let i = 0; i < padding.length; i += 65_536) crypto.getRandomValues(padding.subarray(i, i + 65_536));
  return zipEntries({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="bin" ContentType="application/octet-stream"/>' +
      '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>',
    '3D/3dmodel.model': [
      { bytes: `${head}<resources><object id="1"><mesh><vertices>` },
      flood('<vertex x="0" y="0" z="0"/>', xmlBytes),
      { bytes: '</vertices><triangles/></mesh></object></resources><build><item objectid="1"/></build></model>' },
    ],
    'Metadata/padding.bin': padding,
  });
}
