// The model parsers against the whole corpus and against each rule of the parser issue.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { strToU8, Zip, ZipDeflate, zipSync } from 'fflate';
import {
  BinaryStlStream,
  CanonicalObjDraft,
  DEFAULT_LIMITS,
  detectFormat,
  type Mesh,
  ModelError,
  measure,
  type ParsedModel,
  parseModel,
  writeCanonicalObj,
} from '../shared/model/index.ts';
import { MAX_OPENNESS, openness } from '../shared/model/quality.ts';
import { binaryStl } from './helpers/binary-stl.ts';
import { corpusBytes, corpusPath } from './helpers/corpus.ts';
import { BOX_TRIANGLES } from './helpers/meshes.ts';

// ---- helpers ---------------------------------------------------------------------------------

const text = (s: string) => new TextEncoder().encode(s);

function parseFile(rel: string): ParsedModel {
  const bytes = corpusBytes(rel);
  return parseModel(bytes, detectFormat(path.basename(rel), bytes) ?? undefined);
}

/** Asserts that `fn` throws a ModelError with `code` (and a message matching `message`). */
function refuses(fn: () => unknown, code: string, message?: RegExp): ModelError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(
    caught instanceof ModelError,
    `expected ModelError ${code}, got ${caught === undefined ? 'success' : String(caught)}`,
  );
  assert.equal(caught.code, code, caught.message);
  if (message) assert.match(caught.message, message);
  return caught;
}

function closeTo(actual: number, expected: number, relative: number, what: string): void {
  const scale = Math.max(Math.abs(expected), 1e-9);
  assert.ok(Math.abs(actual - expected) / scale <= relative, `${what}: ${actual} vs ${expected}`);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

const corpusFiles = walk(corpusPath())
  .filter((f) => /\.(stl|obj|3mf)$/i.test(f))
  .map((f) => path.relative(corpusPath(), f).split(path.sep).join('/'))
  .sort();

const CUBE_VERTICES = 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n';
const CUBE_FACES = 'f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n';

/** The 12 triangles of an axis-aligned cube, outward-facing. */
function cubeTriangles(size = 1, [ox, oy, oz] = [0, 0, 0]): number[][] {
  const v = (i: number) => [ox + (i & 1 ? size : 0), oy + (i & 2 ? size : 0), oz + (i & 4 ? size : 0)];
  const quads: [number, number, number, number][] = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [1, 3, 7, 5],
    [3, 2, 6, 7],
    [2, 0, 4, 6],
  ];
  return quads.flatMap(([a, b, c, d]) => [
    [...v(a), ...v(b), ...v(c)],
    [...v(a), ...v(c), ...v(d)],
  ]);
}

const CORE = 'http://schemas.microsoft.com/3dmanufacturing/core/2015/02';
const CUBE_MESH = `<mesh><vertices>${[
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
  .join('')}</vertices><triangles>${BOX_TRIANGLES.map(([a, b, c]) => `<triangle v1="${a}" v2="${b}" v3="${c}"/>`).join(
  '',
)}</triangles></mesh>`;

function modelXml(body: string, attrs = 'unit="millimeter"'): string {
  return `<?xml version="1.0" encoding="UTF-8"?><model ${attrs} xmlns="${CORE}">${body}</model>`;
}

/** A 3MF package; `parts` may add or override files. The model is at `modelPath`. */
function make3mf(model: string, opts: { modelPath?: string; parts?: Record<string, string> } = {}): Uint8Array {
  const modelPath = opts.modelPath ?? '3D/3dmodel.model';
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': text(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>',
    ),
    '_rels/.rels': text(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        `<Relationship Target="/${modelPath}" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>`,
    ),
    [modelPath]: text(model),
  };
  for (const [name, content] of Object.entries(opts.parts ?? {})) files[name] = text(content);
  return zipSync(files);
}

const cube3mf = (resources: string, build: string, attrs?: string) =>
  make3mf(modelXml(`<resources>${resources}</resources><build>${build}</build>`, attrs));

function arrayBuffersGrowth(fn: () => void): number {
  const before = process.memoryUsage().arrayBuffers;
  fn();
  return process.memoryUsage().arrayBuffers - before;
}

// ---- the corpus --------------------------------------------------------------------------------

const reference = JSON.parse(readFileSync(corpusPath('reference-measurements.json'), 'utf8')) as Record<
  string,
  {
    facets?: number;
    manifold?: boolean;
    size_mm?: [number, number, number];
    min_mm?: [number, number, number];
    volume_mm3?: number;
  }
>;

/** broken/ file -> the specific code it must be refused with. */
const BROKEN: Record<string, string> = {
  'broken/3mf_billion_laughs.3mf': 'xml_dtd_forbidden',
  'broken/3mf_missing_model_part.3mf': 'model_part_missing',
  'broken/3mf_not_a_zip.3mf': 'zip_invalid',
  'broken/3mf_triangle_index_out_of_range.3mf': 'index_out_of_range',
  'broken/3mf_xml_malformed.3mf': 'xml_malformed',
  'broken/3mf_xxe_entity.3mf': 'xml_dtd_forbidden',
  'broken/3mf_zip_bomb_1GiB.3mf': 'inflated_too_large',
  'broken/empty.stl': 'empty_file',
  'broken/obj_face_index_out_of_range.obj': 'obj_index_out_of_range',
  'broken/obj_garbage.obj': 'obj_syntax',
  'broken/obj_no_faces.obj': 'no_triangles',
  'broken/png_renamed.stl': 'unsupported_format',
  'broken/stl_ascii_garbage.stl': 'stl_syntax',
  'broken/stl_claims_4e9_triangles.stl': 'stl_too_many_triangles',
  'broken/stl_count_mismatch.stl': 'stl_count_mismatch',
  'broken/stl_header_only.stl': 'stl_truncated',
  'broken/stl_inf_vertex.stl': 'non_finite_vertex',
  'broken/stl_nan_vertex.stl': 'non_finite_vertex',
  'broken/stl_open_box_not_watertight.stl': 'mesh_not_closed',
  'broken/stl_truncated.stl': 'stl_truncated',
  'broken/stl_zero_triangles.stl': 'no_triangles',
};

/** mustfail file -> what its message must name (the rule its file name states). */
const MUSTFAIL: Record<string, RegExp> = {
  Chapter2_DuplicatedColorGroupId: /duplicated resource id/,
  Chapter2_DuplicatedIdAcrossGroup: /duplicated resource id/,
  Chapter2_MissingColorValue: /missing color value/,
  Chapter3_DuplicatedTexture2DGroup: /duplicated resource id/,
  Chapter3_MissingTexId: /missing texid/,
  Chapter4a_DuplicatedCompositeMaterials: /duplicated resource id/,
  Chapter4b_MatId_IsNotBaseMaterials: /matid is not basematerials/,
  Chapter4c_MissingMatidMatIndices: /missing matid/,
  Chapter4d_MissingMatIndices: /missing matindices/,
  Chapter5a_MissingPIDs: /missing pids/,
  Chapter5b_MultipleReferenceToBaseAndCompositeMatterials: /more than one material group/,
  Chapter5b_MultipleReferenceToBaseMatterials: /more than one material group/,
  Chapter5b_ReferToAnotherMultiProperties: /another multiproperties/,
  Chapter5c_MultipleReferenceToColorgroup: /more than one colorgroup/,
  Chapter5d_MultipleReferenceToCompositeMaterials: /more than one material group/,
  Chapter5e_ReferenceToMultiProperties: /another multiproperties/,
  Chapter6_2DTexture_InvalidContentType: /invalid content type/,
  Chapter6_2DTexture_MissingPath: /missing path/,
  'Chapter2.1.1a_PartsRelationships_NonExist3DModelPart': /3D model part/,
  'Chapter2.1.1b_PartsRelationships_LinkToExternal': /link to external/,
  'Chapter2.1.2_PartsRelationships_MoreThanOne3DModelPart': /more than one 3D model part/,
  'Chapter2.1.3_PartsRelationships_NonExistThumbnailPart': /non-existent part.*thumbnail/,
  'Chapter2.1.4_PartsRelationships_MoreThanOnePrintTicket': /more than one print ticket/,
  'Chapter2.3.2a_NonUTF_Encoding': /non-UTF encoding/,
  'Chapter2.3.2b_DataTypeDefinitionInXMLMarkup': /DOCTYPE \(document type definition\)/,
  'Chapter2.3.2c_UndefinedNameSpaceInXDS': /undefined namespace/,
  'Chapter2.3.2d_UndefinedXMLXSIInXSDSchema': /undefined namespace/,
  'Chapter2.3.4_WhiteSpace': /xml:space/,
  'Chapter3.4.1a_MissingMetadataName': /missing metadata name/,
  'Chapter3.4.1b_DuplicatedMetadataName': /duplicated metadata name/,
  'Chapter3.4.3.1a_NotMatchingObjectIdInBuildItem': /objectid does not match an object/,
  'Chapter3.4.3.1b_BuildItemReferToObjectOfTypeOther': /type "other".*must not be build items/,
  'Chapter3.4a_MoreThanOneModel': /more than one model/,
  'Chapter3.4b_MissingBuildElement': /missing build element/,
  'Chapter3.4c_MissingResourceElement': /missing resources element/,
  Chapter4a_InvalidObjectType: /invalid object type/,
  Chapter4b_PID_IsNotSpecified: /pid is not specified/,
  Chapter5a_DuplicatedBaseMaterials: /duplicated resource id/,
};

describe('corpus', () => {
  it('every corpus model file has an expected outcome in this test', () => {
    const covered = (f: string) =>
      f in reference ||
      f in BROKEN ||
      f === 'broken/obj_negative_indices_ok.obj' ||
      /conformance\/(mustpass|mustfail|examples)\//.test(f);
    assert.deepEqual(
      corpusFiles.filter((f) => !covered(f)),
      [],
    );
  });

  for (const [file, ref] of Object.entries(reference)) {
    if (!ref.size_mm) {
      it(`${file} loads (no whole-model reference figures)`, () =>
        assert.ok(parseFile(file).measurements.triangles > 0));
      continue;
    }
    it(`${file} matches PrusaSlicer's figures within 0.1 %`, () => {
      const m = parseFile(file).measurements;
      closeTo(m.triangles, ref.facets!, 0.001, 'facets');
      closeTo(m.volume_mm3, ref.volume_mm3!, 0.001, 'volume');
      for (const k of [0, 1, 2] as const) {
        closeTo(m.bbox.size[k], ref.size_mm![k], 0.001, `size[${k}]`);
        // Position too: catches transform and unit mistakes the size alone would not.
        assert.ok(
          Math.abs(m.bbox.min[k] - ref.min_mm![k]) <= 0.001 * Math.max(...ref.size_mm!),
          `min[${k}] ${m.bbox.min[k]} vs ${ref.min_mm![k]}`,
        );
      }
      assert.equal(m.watertight, ref.manifold);
    });
  }

  for (const file of corpusFiles.filter(
    (f) => f.includes('conformance/mustpass/') || f.includes('conformance/examples/'),
  )) {
    it(`${file} is accepted`, () => assert.ok(parseFile(file).measurements.triangles > 0));
  }

  for (const file of corpusFiles.filter((f) => f.includes('conformance/mustfail/'))) {
    const rule = Object.entries(MUSTFAIL).find(([key]) => path.basename(file, '.3mf').endsWith(key));
    it(`${file} is refused naming its rule`, () => {
      assert.ok(rule, 'no expectation for this mustfail file');
      let caught: unknown;
      try {
        parseFile(file);
      } catch (err) {
        caught = err;
      }
      assert.ok(caught instanceof ModelError, `not refused with a ModelError: ${String(caught)}`);
      assert.match(caught.message, rule[1]);
    });
  }

  for (const [file, code] of Object.entries(BROKEN)) {
    it(`${file} is refused with ${code}`, () => {
      const err = refuses(() => parseFile(file), code);
      assert.match(err.message, /^[A-Z0-9].*\.$/s, 'the message is a sentence');
    });
  }

  it('broken/obj_negative_indices_ok.obj is accepted (relative indices are legal OBJ)', () => {
    const m = parseFile('broken/obj_negative_indices_ok.obj').measurements;
    assert.equal(m.triangles, 4);
    assert.equal(m.watertight, true);
    closeTo(m.volume_mm3, 1000 / 6, 1e-12, 'tetrahedron volume');
  });
});

// ---- STL ---------------------------------------------------------------------------------------

describe('STL', () => {
  it('decides binary by the size rule even when the bytes look like ASCII', () => {
    for (const f of ['stl/two_cubes_10mm.stl', 'stl/tiny_0.5mm_cube.stl']) {
      const bytes = corpusBytes(f);
      assert.equal(detectFormat('x.stl', bytes), 'stl');
      assert.equal(parseModel(bytes).measurements.triangles, f.includes('two') ? 24 : 12);
    }
  });

  it('reads a binary STL whose header starts with "solid" as binary', () => {
    const bytes = binaryStl(cubeTriangles(20), 'solid cube made by a binary exporter');
    const m = parseModel(bytes, 'stl').measurements;
    assert.deepEqual([m.triangles, m.volume_mm3, m.watertight], [12, 8000, true]);
    assert.equal(parseFile('stl/cube20_header_says_solid.stl').measurements.triangles, 12);
  });

  it('welds identical positions into one vertex (-0 and +0 included)', () => {
    const triangles = cubeTriangles(1).map((t) => t.map((v) => (v === 0 ? -0 : v)));
    const [first] = triangles;
    assert.ok(first);
    first[0] = 0; // +0 where others have -0
    const { mesh } = parseModel(binaryStl(triangles), 'stl');
    assert.equal(mesh.positions.length / 3, 8);
    assert.equal(mesh.indices.length, 36);
  });

  it('checks a lying triangle count against the file size before allocating', () => {
    const bytes = binaryStl(cubeTriangles(1));
    new DataView(bytes.buffer).setUint32(80, 4_000_000_000, true);
    const growth = arrayBuffersGrowth(() => {
      refuses(() => parseModel(bytes, 'stl'), 'stl_too_many_triangles', /4000000000/);
      // Even with a cap high enough to let the claim through, the size check refuses it first.
      refuses(() => parseModel(bytes, 'stl', { maxTriangles: 4_294_967_295 }), 'stl_count_mismatch');
    });
    assert.ok(growth < 1e6, `allocated ${growth} bytes`);
  });

  it('names truncation, count mismatch and short files precisely', () => {
    const full = binaryStl(cubeTriangles(1));
    refuses(() => parseModel(full.subarray(0, full.length - 7), 'stl'), 'stl_truncated', /partway through triangle 12/);
    refuses(() => parseModel(full.subarray(0, full.length - 50), 'stl'), 'stl_count_mismatch');
    refuses(() => parseModel(full.subarray(0, 60), 'stl'), 'stl_truncated');
  });

  it('refuses NaN and infinite vertices in binary and ASCII STL', () => {
    const bytes = binaryStl(cubeTriangles(1));
    new DataView(bytes.buffer).setFloat32(84 + 50 * 3 + 20, NaN, true);
    refuses(() => parseModel(bytes, 'stl'), 'non_finite_vertex', /Triangle 4/);
    const ascii =
      'solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 inf\nvertex 0 1 0\nendloop\nendfacet\nendsolid a\n';
    refuses(() => parseModel(text(ascii), 'stl'), 'non_finite_vertex', /line 5/);
    refuses(() => parseModel(text(ascii.replace('inf', '1e999')), 'stl'), 'non_finite_vertex');
  });

  it('parses ASCII STL strictly', () => {
    const facet = (v: string) => `facet normal 0 0 0\n outer loop\n${v}\n endloop\nendfacet\n`;
    const solid = (facets: string) => `solid s\n${facets}endsolid s\n`;
    const corner = (p: number[]) => `vertex ${p.join(' ')}`;
    const tetra = (dz = 0, fmt = corner) => {
      const p: [number[], number[], number[], number[]] = [
        [0, 0, dz],
        [1, 0, dz],
        [0, 1, dz],
        [0, 0, dz + 1],
      ];
      const faces = [
        [0, 2, 1],
        [0, 1, 3],
        [1, 2, 3],
        [0, 3, 2],
      ] as const;
      return faces.map((f) => facet(f.map((i) => fmt(p[i])).join('\n'))).join('');
    };
    const one = parseModel(text(solid(tetra())), 'stl').measurements;
    assert.deepEqual([one.triangles, one.watertight], [4, true]);
    closeTo(one.volume_mm3, 1 / 6, 1e-12, 'tetrahedron');
    // Two solids in one file, upper-case keywords and exponents are valid.
    const upper = (p: number[]) => `VERTEX ${p.map((v) => `${v}E0`).join(' ')}`;
    assert.equal(parseModel(text(solid(tetra()) + solid(tetra(5, upper))), 'stl').measurements.triangles, 8);
    const broken = (from: string, to: string) => text(solid(tetra()).replace(from, to));
    refuses(() => parseModel(broken('vertex 1 0 0\n', ''), 'stl'), 'stl_syntax', /expected 'vertex'/);
    refuses(() => parseModel(broken(' endloop', 'vertex 1 1 1\n endloop'), 'stl'), 'stl_syntax', /'endloop'/);
    refuses(() => parseModel(broken('vertex 1 0 0', 'vertex 1 0x10 0'), 'stl'), 'stl_syntax', /a number/);
    refuses(() => parseModel(broken('vertex 1 0 0', 'vertex 1 0'), 'stl'), 'stl_syntax');
    refuses(() => parseModel(broken('endsolid s', ''), 'stl'), 'stl_syntax', /'endsolid'/);
    refuses(() => parseModel(text('hello, world\n'), 'stl'), 'stl_syntax', /'solid'/);
    const bom = text(`\ufeff${solid(tetra())}`);
    assert.equal(detectFormat('bom.stl', bom), 'stl');
    assert.equal(parseModel(bom).measurements.triangles, 4);
  });
});

describe('binary STL read as it arrives', () => {
  /** Reads `bytes` in chunks of `size` (the last one shorter), with a canonical draft; the stream and its draft. */
  const streamed = (bytes: Uint8Array, size: number) => {
    const draft = new CanonicalObjDraft(Number.POSITIVE_INFINITY);
    const stream = new BinaryStlStream(DEFAULT_LIMITS, draft);
    for (let at = 0; at < bytes.length; at += size) stream.push(bytes.subarray(at, at + size));
    return { stl: stream.finish(), draft };
  };
  const collect = (draft: CanonicalObjDraft, mesh: Mesh) => {
    const chunks: Uint8Array[] = [];
    return draft.streamIf(mesh, (c) => chunks.push(c)) ? Buffer.concat(chunks) : null;
  };

  it('welds the mesh parseModel does and drafts its canonical OBJ, whatever the chunks', () => {
    const benchy = corpusBytes('stl/3DBenchy.stl');
    const cube = binaryStl(cubeTriangles(20));
    const cases = [
      ...[4099, 65536, benchy.length].map((size) => ({ bytes: benchy, size })),
      ...[1, 49, 50, 51].map((size) => ({ bytes: cube, size })),
    ];
    for (const { bytes, size } of cases) {
      const whole = parseModel(bytes, 'stl').mesh;
      const { stl, draft } = streamed(bytes, size);
      const what = `${bytes.length} bytes in chunks of ${size}`;
      assert.ok(stl, what);
      assert.deepEqual(stl.mesh, whole, what);
      assert.deepEqual(collect(draft, stl.mesh), Buffer.from(writeCanonicalObj(whole)), what);
    }
  });

  it('leaves to parseModel what is not the binary STL its header states', () => {
    const full = binaryStl(cubeTriangles(1));
    assert.equal(streamed(full.subarray(0, full.length - 7), 64).stl, null, 'cut short');
    assert.equal(streamed(new Uint8Array([...full, ...new Uint8Array(50)]), 64).stl, null, 'longer');
    const nan = full.slice();
    new DataView(nan.buffer).setFloat32(84 + 50 * 3 + 20, NaN, true);
    assert.equal(streamed(nan, 64).stl, null, 'a vertex that is not finite');
    const zip = zipSync({ 'a.txt': strToU8('x'.repeat(200)) });
    assert.equal(streamed(zip, 64).stl, null, 'a zip');
  });

  it('drafts no canonical text for a mesh that drops vertices, nor past its bound', () => {
    // A degenerate triangle whose corners no other triangle uses: the finished mesh drops them.
    const triangles = [...cubeTriangles(1), [5, 5, 5, 5, 5, 5, 6, 6, 6]];
    const { stl, draft } = streamed(binaryStl(triangles), 64);
    assert.ok(stl);
    assert.equal(collect(draft, stl.mesh), null);
    const bounded = new CanonicalObjDraft(100);
    bounded.add(stl.mesh);
    assert.equal(collect(bounded, stl.mesh), null);
  });
});

// ---- OBJ ---------------------------------------------------------------------------------------

describe('OBJ', () => {
  const cube = (faces: string) => parseModel(text(CUBE_VERTICES + faces), 'obj').measurements;

  it('reads v, v/vt, v//vn and v/vt/vn face corners alike', () => {
    const withTex = 'vt 0 0\n'.repeat(8) + 'vn 0 0 1\n'.repeat(8);
    const forms = [
      (i: string) => i,
      (i: string) => `${i}/${i}`,
      (i: string) => `${i}//${i}`,
      (i: string) => `${i}/${i}/${i}`,
    ];
    for (const form of forms) {
      const faces = CUBE_FACES.replace(/\d+/g, (i) => form(i));
      const m = parseModel(text(CUBE_VERTICES + withTex + faces), 'obj').measurements;
      assert.deepEqual([m.triangles, m.volume_mm3, m.watertight], [12, 1, true], form('1'));
    }
  });

  it('resolves negative (relative) indices', () => {
    const faces = CUBE_FACES.replace(/\d+/g, (i) => String(Number(i) - 9));
    assert.deepEqual([cube(faces).triangles, cube(faces).volume_mm3], [12, 1]);
  });

  it('fan-triangulates polygons', () => {
    assert.equal(cube(CUBE_FACES).triangles, 12);
    // A prism over a convex pentagon of area 5: two pentagons (3 triangles each) and 5 quads.
    const ring = [
      [0, 0],
      [2, 0],
      [3, 1],
      [1, 2],
      [-1, 1],
    ];
    const v = [0, 2].flatMap((z) => ring.map(([x, y]) => `v ${x} ${y} ${z}\n`)).join('');
    const sides = ring.map((_, i) => `f ${i + 1} ${((i + 1) % 5) + 1} ${((i + 1) % 5) + 6} ${i + 6}\n`).join('');
    const prism = parseModel(text(`${v}f 5 4 3 2 1\nf 6 7 8 9 10\n${sides}`), 'obj').measurements;
    assert.deepEqual([prism.triangles, prism.watertight], [16, true]);
    closeTo(prism.volume_mm3, 10, 1e-12, 'prism volume');
  });

  it('ignores statements without surface geometry, and comments', () => {
    const obj = `# exported\nmtllib a.mtl\no cube\ng side\nusemtl red\ns 1\ns off\nvt 0.5 0.5\nvn 0 0 1\n${CUBE_VERTICES}l 1 2\n${CUBE_FACES.replace(/\n/g, ' # trailing comment\n')}`;
    const m = parseModel(text(obj), 'obj').measurements;
    assert.deepEqual([m.triangles, m.volume_mm3, m.watertight], [12, 1, true]);
  });

  it('accepts a UTF-8 byte-order mark and CRLF line ends', () => {
    const obj = text(`\ufeff${(CUBE_VERTICES + CUBE_FACES).replace(/\n/g, '\r\n')}`);
    assert.equal(detectFormat('cube.obj', obj), 'obj');
    assert.equal(parseModel(obj).measurements.volume_mm3, 1);
  });

  it('refuses out-of-range indices', () => {
    for (const bad of ['f 1 2 9', 'f 1 2 -9', 'f 0 1 2']) {
      refuses(() => parseModel(text(`${CUBE_VERTICES + bad}\n`), 'obj'), 'obj_index_out_of_range');
    }
    // A relative index counts only vertices defined before the face.
    refuses(() => parseModel(text('v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n'), 'obj'), 'obj_index_out_of_range');
  });

  it('refuses files without faces, garbage and malformed records', () => {
    refuses(() => parseModel(text(CUBE_VERTICES), 'obj'), 'no_triangles');
    refuses(() => parseModel(text('hello world\n'), 'obj'), 'obj_syntax', /line 1/);
    refuses(() => parseModel(text(`${CUBE_VERTICES}f 1/2/3/4 2 3\n`), 'obj'), 'obj_syntax');
    refuses(() => parseModel(text(`${CUBE_VERTICES}f 1 2\n`), 'obj'), 'obj_syntax', /line 9/);
    refuses(() => parseModel(text('v 0 0\n'), 'obj'), 'obj_syntax');
    refuses(() => parseModel(text('v 0 0 nan\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'), 'obj'), 'non_finite_vertex');
    refuses(() => parseModel(text(`v 0 0 ${'1'.repeat(10_000)}\n`), 'obj'), 'obj_syntax');
  });

  it('stays bounded on a huge single line', () => {
    // Refused at the triangle cap, not read to its end; how long that takes is measured by `npm run bench`.
    const line = `f${' 1 2 3'.repeat(3_000_000)}\n`;
    refuses(() => parseModel(text(CUBE_VERTICES + line), 'obj', { maxTriangles: 100_000 }), 'too_many_triangles');
  });
});

// ---- 3MF -----------------------------------------------------------------------------------------

describe('3MF', () => {
  it('finds the model part through _rels/.rels, not a fixed path', () => {
    const bytes = make3mf(
      modelXml(`<resources><object id="1">${CUBE_MESH}</object></resources><build><item objectid="1"/></build>`),
      {
        modelPath: 'Models/main part.model',
      },
    );
    assert.equal(parseModel(bytes, '3mf').measurements.volume_mm3, 1000);
  });

  it('converts every unit to millimetres', () => {
    const units: Record<string, number> = {
      micron: 0.001,
      millimeter: 1,
      centimeter: 10,
      inch: 25.4,
      foot: 304.8,
      meter: 1000,
    };
    for (const [unit, scale] of Object.entries(units)) {
      const r = parseModel(
        cube3mf(`<object id="1">${CUBE_MESH}</object>`, '<item objectid="1"/>', `unit="${unit}"`),
        '3mf',
      );
      assert.equal(r.unit, unit);
      closeTo(r.measurements.bbox.size[0], 10 * scale, 1e-12, unit);
    }
    assert.equal(parseFile('3mf/cube10_inch_units.3mf').measurements.bbox.size[0], 254);
    refuses(
      () =>
        parseModel(cube3mf(`<object id="1">${CUBE_MESH}</object>`, '<item objectid="1"/>', 'unit="furlong"'), '3mf'),
      '3mf_rule_violation',
    );
  });

  it('applies build item and component transforms, several objects and items', () => {
    const resources = `<object id="1">${CUBE_MESH}</object><object id="2"><components>
      <component objectid="1"/><component objectid="1" transform="2 0 0 0 1 0 0 0 1 20 0 0"/></components></object>
      <object id="3">${CUBE_MESH}</object>`;
    const build =
      '<item objectid="2" transform="1 0 0 0 1 0 0 0 1 0 0 5"/><item objectid="1" transform="1 0 0 0 1 0 0 0 1 0 100 0"/>';
    const m = parseModel(cube3mf(resources, build), '3mf').measurements;
    // cube + double-width cube at x=20 (as component of item 1, raised 5) + cube at y=100; object 3 is not built.
    assert.equal(m.triangles, 36);
    assert.equal(m.bodies, 3);
    closeTo(m.volume_mm3, 1000 + 2000 + 1000, 1e-12, 'volume');
    assert.deepEqual(m.bbox.min, [0, 0, 0]);
    assert.deepEqual(m.bbox.max, [40, 110, 15]);
  });

  it('keeps a mirrored instance outward-facing', () => {
    const m = parseModel(
      cube3mf(`<object id="1">${CUBE_MESH}</object>`, '<item objectid="1" transform="-1 0 0 0 1 0 0 0 1 0 0 0"/>'),
      '3mf',
    ).measurements;
    assert.equal(m.watertight, true);
    assert.equal(m.volume_mm3, 1000);
    assert.deepEqual(m.bbox.min, [-10, 0, 0]);
  });

  it('refuses component cycles and a 200-level component chain', () => {
    const cycle = `<object id="1"><components><component objectid="2"/></components></object><object id="2"><components><component objectid="1"/></components></object>`;
    refuses(() => parseModel(cube3mf(cycle, '<item objectid="1"/>'), '3mf'), 'component_cycle');
    let chain = `<object id="1">${CUBE_MESH}</object>`;
    for (let id = 2; id <= 201; id++)
      chain += `<object id="${id}"><components><component objectid="${id - 1}"/></components></object>`;
    refuses(() => parseModel(cube3mf(chain, '<item objectid="201"/>'), '3mf'), 'component_too_deep');
  });

  it('bounds a fan-out of components', () => {
    let fan = `<object id="1"><mesh><vertices/><triangles/></mesh></object>`;
    const children = (id: number) => Array.from({ length: 10 }, () => `<component objectid="${id}"/>`).join('');
    for (let id = 2; id <= 12; id++) fan += `<object id="${id}"><components>${children(id - 1)}</components></object>`;
    refuses(
      () => parseModel(cube3mf(fan, '<item objectid="12"/>'), '3mf', { maxComponentDepth: 64 }),
      'too_many_instances',
    );
  });

  it('refuses objects of type other as build items', () => {
    refuses(
      () => parseModel(cube3mf(`<object id="1" type="other">${CUBE_MESH}</object>`, '<item objectid="1"/>'), '3mf'),
      '3mf_rule_violation',
      /type "other"/,
    );
  });

  it('refuses DTDs and entities before expanding anything', () => {
    const lol = `<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${'&a;'.repeat(10)}">`).join('')}]>`;
    const bytes = make3mf(
      `<?xml version="1.0"?>${lol}${modelXml(`<metadata name="Title">&bbbbbbbbb;</metadata>`).replace(/^<\?xml[^>]*>/, '')}`,
    );
    refuses(() => parseModel(bytes, '3mf'), 'xml_dtd_forbidden');
  });

  it('refuses XML nested 1000 levels deep', () => {
    // Deep inside an ignorable element: only the depth cap can stop it.
    const deep = '<x:a>'.repeat(1000) + '</x:a>'.repeat(1000);
    const attrs =
      'unit="millimeter" xmlns:x="urn:x" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x"';
    const bytes = make3mf(modelXml(`<resources>${deep}</resources><build/>`, attrs));
    refuses(() => parseModel(bytes, '3mf'), 'xml_too_deep');
  });

  it('refuses the 1 GiB zip bomb quickly, without inflating it', () => {
    const bytes = corpusBytes('broken/3mf_zip_bomb_1GiB.3mf');
    // Quickly: it allocates a bounded amount, not the gibibyte; its time is measured by `npm run bench`.
    const growth = arrayBuffersGrowth(() => refuses(() => parseModel(bytes, '3mf'), 'inflated_too_large'));
    assert.ok(growth < 64 * 1024 * 1024, `allocated ${growth} bytes`);
  });

  it('counts inflated bytes as they are produced when sizes are not declared', () => {
    // Streaming zips put sizes in a data descriptor after the data: only counting can stop them.
    const chunks: Uint8Array[] = [];
    const zip = new Zip((err, chunk) => {
      if (err) throw err;
      chunks.push(chunk);
    });
    const add = (name: string, data: Uint8Array) => {
      const file = new ZipDeflate(name, { level: 9 });
      zip.add(file);
      file.push(data, true);
    };
    const normal = make3mf(modelXml('<resources/><build/>'));
    add(
      '[Content_Types].xml',
      strToU8(
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>',
      ),
    );
    add(
      '_rels/.rels',
      strToU8(
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="r" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>',
      ),
    );
    const model = new Uint8Array(16 * 1024 * 1024).fill(32);
    model.set(strToU8(modelXml('<resources/><build/>')));
    add('3D/3dmodel.model', model);
    zip.end();
    const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let offset = 0;
    for (const c of chunks) {
      bytes.set(c, offset);
      offset += c.length;
    }
    assert.ok(normal.length > 0 && bytes.length < model.length / 100, 'the bomb compresses well');
    refuses(
      () => parseModel(bytes, '3mf', { maxInflatedBytes: 4 * 1024 * 1024 }),
      'inflated_too_large',
      /stopped while reading/,
    );
  });

  it('refuses an entry that inflates beyond its declared size', () => {
    const bytes = make3mf(
      modelXml(`<resources><object id="1">${CUBE_MESH}</object></resources><build><item objectid="1"/></build>`),
    );
    // Lower the declared uncompressed size in the model entry's local header.
    const view = new DataView(bytes.buffer);
    for (let o = 0; o + 30 < bytes.length; o++) {
      if (view.getUint32(o, true) !== 0x04034b50) continue;
      const nameLength = view.getUint16(o + 26, true);
      if (new TextDecoder().decode(bytes.subarray(o + 30, o + 30 + nameLength)) === '3D/3dmodel.model')
        view.setUint32(o + 22, 100, true);
    }
    refuses(() => parseModel(bytes, '3mf'), 'zip_invalid', /more than its declared/);
  });

  it('caps zip entries', () => {
    const parts = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`Metadata/x${i}.txt`, 'x']));
    const bytes = make3mf(
      modelXml(`<resources><object id="1">${CUBE_MESH}</object></resources><build><item objectid="1"/></build>`),
      { parts },
    );
    refuses(() => parseModel(bytes, '3mf', { maxZipEntries: 10 }), 'zip_too_many_entries');
    assert.equal(parseModel(bytes, '3mf').measurements.triangles, 12);
  });

  it('validates numbers, indices and required extensions', () => {
    const withVertex = (v: string) => CUBE_MESH.replace('<vertex x="10" y="0" z="0"/>', v);
    refuses(
      () =>
        parseModel(
          cube3mf(`<object id="1">${withVertex('<vertex x="1,5" y="0" z="0"/>')}</object>`, '<item objectid="1"/>'),
          '3mf',
        ),
      'invalid_number',
    );
    refuses(
      () =>
        parseModel(
          cube3mf(`<object id="1">${withVertex('<vertex x=" 10" y="0" z="0"/>')}</object>`, '<item objectid="1"/>'),
          '3mf',
        ),
      'invalid_number',
    );
    refuses(
      () =>
        parseModel(
          cube3mf(`<object id="1">${CUBE_MESH.replace('v3="1"', 'v3="8"')}</object>`, '<item objectid="1"/>'),
          '3mf',
        ),
      'index_out_of_range',
    );
    const slice =
      'unit="millimeter" xmlns:s="http://schemas.microsoft.com/3dmanufacturing/slice/2015/07" requiredextensions="s"';
    refuses(
      () => parseModel(cube3mf(`<object id="1">${CUBE_MESH}</object>`, '<item objectid="1"/>', slice), '3mf'),
      'unsupported_extension',
    );
  });

  it('ignores markup declared ignorable and refuses other unknown namespaces', () => {
    const mc =
      'unit="millimeter" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:v="urn:vendor"';
    const resources = `<object id="1" v:colour="red">${CUBE_MESH}</object><v:extra><anything/></v:extra>`;
    assert.equal(
      parseModel(cube3mf(resources, '<item objectid="1"/>', `${mc} mc:Ignorable="v"`), '3mf').measurements.triangles,
      12,
    );
    refuses(() => parseModel(cube3mf(resources, '<item objectid="1"/>', mc), '3mf'), 'xml_namespace');
  });

  it('resolves production-extension paths to other model parts', () => {
    const other = modelXml(`<resources><object id="5">${CUBE_MESH}</object></resources><build/>`);
    const root = modelXml(
      '<resources/><build><item objectid="5" p:path="/3D/Objects/part.model" transform="1 0 0 0 1 0 0 0 1 0 0 3"/></build>',
      'unit="millimeter" xmlns:p="http://schemas.microsoft.com/3dmanufacturing/production/2015/06" requiredextensions="p"',
    );
    const m = parseModel(make3mf(root, { parts: { '3D/Objects/part.model': other } }), '3mf').measurements;
    assert.deepEqual([m.triangles, m.bbox.min[2]], [12, 3]);
  });

  it('lets only the root model part refer to other parts', () => {
    const production = 'unit="millimeter" xmlns:p="http://schemas.microsoft.com/3dmanufacturing/production/2015/06"';
    const leaf = modelXml(`<resources><object id="1">${CUBE_MESH}</object></resources><build/>`);
    const middle = modelXml(
      '<resources><object id="2"><components><component objectid="1" p:path="/3D/leaf.model"/></components></object></resources><build/>',
      production,
    );
    const root = modelXml('<resources/><build><item objectid="2" p:path="/3D/middle.model"/></build>', production);
    const bytes = make3mf(root, { parts: { '3D/leaf.model': leaf, '3D/middle.model': middle } });
    refuses(() => parseModel(bytes, '3mf'), '3mf_rule_violation', /only the root model part/);
  });

  it('refuses packages whose relationships are broken', () => {
    const model = modelXml(
      `<resources><object id="1">${CUBE_MESH}</object></resources><build><item objectid="1"/></build>`,
    );
    const rels = (body: string) =>
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${body}</Relationships>`;
    const rel = (target: string, id: string, type = 'http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel') =>
      `<Relationship Target="${target}" Id="${id}" Type="${type}"/>`;
    refuses(() => parseModel(make3mf(model, { parts: { '_rels/.rels': rels('') } }), '3mf'), 'model_part_missing');
    refuses(
      () => parseModel(make3mf(model, { parts: { '_rels/.rels': rels(rel('/3D/missing.model', 'a')) } }), '3mf'),
      'model_part_missing',
    );
    refuses(
      () =>
        parseModel(
          make3mf(model, {
            parts: { '_rels/.rels': rels(rel('/3D/3dmodel.model', 'a') + rel('/3D/3dmodel.model', 'b')) },
          }),
          '3mf',
        ),
      '3mf_rule_violation',
      /more than one 3D model part/,
    );
    refuses(
      () =>
        parseModel(
          make3mf(model, {
            parts: {
              '_rels/.rels': rels(rel('/3D/3dmodel.model', 'a') + rel('https://example.com/x.png', 'b', 'urn:t')),
            },
          }),
          '3mf',
        ),
      '3mf_rule_violation',
      /external/,
    );
  });
});

// ---- measurement, closedness, canonical output, detection --------------------------------------

describe('measurement', () => {
  const cubeMesh = (): Mesh => parseModel(binaryStl(cubeTriangles(2)), 'stl').mesh;

  it('measures a cube', () => {
    const m = measure(cubeMesh());
    assert.deepEqual(m, {
      triangles: 12,
      bbox: { min: [0, 0, 0], max: [2, 2, 2], size: [2, 2, 2] },
      volume_mm3: 8,
      surface_area_mm2: 24,
      watertight: true,
      bodies: 1,
      // Eight of the twelve triangles span 2 mm along each axis (the other four lie across it): 16 mm a side.
      extent_sums: [16, 16, 16],
    });
  });

  it('sees inconsistent orientation and open edges as not watertight', () => {
    const mesh = cubeMesh();
    const flipped = { positions: mesh.positions, indices: Uint32Array.from(mesh.indices) };
    [flipped.indices[1], flipped.indices[2]] = [flipped.indices[2]!, flipped.indices[1]!];
    assert.equal(measure(flipped).watertight, false);
    assert.equal(measure({ positions: mesh.positions, indices: mesh.indices.slice(3) }).watertight, false);
  });

  it('counts bodies and warns about several', () => {
    const r = parseModel(binaryStl([...cubeTriangles(1), ...cubeTriangles(1, [5, 0, 0])]), 'stl');
    assert.equal(r.measurements.bodies, 2);
    assert.ok(
      r.warnings.some((w) => w.code === 'several_bodies' && w.count === 2 && /2 separate bodies/.test(w.message)),
    );
  });
});

describe('the open-mesh rule', () => {
  it('refuses the open box: its volume is undefined', () => {
    const err = refuses(() => parseFile('broken/stl_open_box_not_watertight.stl'), 'mesh_not_closed');
    closeTo(err.details!.openness as number, (400 * Math.sqrt(1200)) / 3 / (8000 - (400 * 20) / 3), 1e-9, 'openness');
  });

  it('accepts suzanne and the teapot with a warning stating the uncertainty', () => {
    for (const [file, expected] of [
      ['obj/suzanne.obj', 0.141],
      ['obj/teapot.obj', 0.105],
    ] as const) {
      const r = parseFile(file);
      assert.equal(r.measurements.watertight, false);
      const open = openness(r.mesh, r.measurements);
      closeTo(open, expected, 0.01, `${file} openness`);
      assert.ok(open < MAX_OPENNESS);
      const warning = r.warnings.find((w) => w.code === 'not_watertight');
      assert.ok(
        warning && /not watertight/.test(warning.message) && /uncertain by up to 1\d %/.test(warning.message),
        JSON.stringify(r.warnings),
      );
      closeTo(warning.openness as number, open, 1e-12, `${file} openness detail`);
    }
  });

  it('accepts a closed mesh with a small hole, with a warning', () => {
    // A 40-segment cylinder without one side triangle: 0.2 % of the surface missing.
    const n = 40,
      tris: number[][] = [];
    const p = (i: number, z: number) => [10 * Math.cos((2 * Math.PI * i) / n), 10 * Math.sin((2 * Math.PI * i) / n), z];
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      tris.push(
        [0, 0, 0, ...p(j, 0), ...p(i, 0)],
        [0, 0, 10, ...p(i, 10), ...p(j, 10)],
        [...p(i, 0), ...p(j, 0), ...p(j, 10)],
        [...p(i, 0), ...p(j, 10), ...p(i, 10)],
      );
    }
    tris.splice(2, 1);
    const r = parseModel(binaryStl(tris), 'stl');
    assert.equal(r.measurements.watertight, false);
    assert.ok(r.warnings.some((w) => w.code === 'not_watertight' && /not watertight/.test(w.message)));
  });
});

describe('canonical OBJ', () => {
  it('writes v and f lines that read back to the identical mesh', () => {
    for (const file of ['stl/3DBenchy.stl', 'obj/suzanne.obj', '3mf/cube10_inch_units.3mf']) {
      const { mesh } = parseFile(file);
      const obj = writeCanonicalObj(mesh);
      const lines = new TextDecoder().decode(obj).split('\n');
      assert.ok(
        lines.every((l) => l === '' || /^(v -?[\d.e+-]+ -?[\d.e+-]+ -?[\d.e+-]+|f \d+ \d+ \d+)$/.test(l)),
        file,
      );
      const back = parseModel(obj, 'obj').mesh;
      assert.deepEqual(back.positions, mesh.positions, file);
      assert.deepEqual(back.indices, mesh.indices, file);
    }
  });

  it('formats awkward numbers exactly', () => {
    const values = [0.1, -0.2, 1e-7, 123456.789e-3, 1e21, 5e-324, 1 / 3, -0];
    const positions = new Float64Array([...values, 0].slice(0, 9));
    const mesh: Mesh = {
      positions: Float64Array.from([...values.slice(0, 8), 7, 1, 2, 3, 4, 5, 6, 8, 9, 10]),
      indices: Uint32Array.of(0, 1, 2, 3, 4, 5),
    };
    assert.equal(positions.length, 9);
    const textOut = new TextDecoder().decode(writeCanonicalObj(mesh));
    const numbers = textOut
      .split('\n')
      .filter((l) => l.startsWith('v '))
      .flatMap((l) => l.slice(2).split(' ').map(Number));
    assert.deepEqual(
      Float64Array.from(numbers),
      mesh.positions.map((v) => v + 0),
    );
  });
});

describe('detectFormat', () => {
  it('goes by content first', () => {
    assert.equal(detectFormat('model.stl', corpusBytes('3mf/3DBenchy.3mf')), '3mf');
    assert.equal(detectFormat('model.obj', binaryStl(cubeTriangles(1))), 'stl');
    assert.equal(detectFormat('model', corpusBytes('stl/cube20_ascii.stl')), 'stl');
    assert.equal(detectFormat('model.stl', text(CUBE_VERTICES + CUBE_FACES)), 'obj');
    assert.equal(detectFormat('model.dat', text('# comment\n\nv 1 2 3\n')), 'obj');
  });

  it('does not take a PNG renamed .stl (or .obj) for a model', () => {
    const png = corpusBytes('broken/png_renamed.stl');
    assert.equal(detectFormat('png_renamed.stl', png), null);
    assert.equal(detectFormat('png_renamed.obj', png), null);
    refuses(() => parseModel(png, 'stl'), 'unsupported_format');
    refuses(() => parseModel(png), 'unsupported_format');
  });

  it('uses the extension only to break ties', () => {
    assert.equal(detectFormat('notes.txt', text('hello\n')), null);
    assert.equal(detectFormat('notes.obj', text('hello\n')), 'obj');
    assert.equal(detectFormat('empty.3mf', new Uint8Array(0)), '3mf');
    assert.equal(detectFormat('truncated.stl', corpusBytes('broken/stl_truncated.stl')), 'stl');
    assert.equal(detectFormat('truncated.bin', corpusBytes('broken/stl_truncated.stl')), null);
  });
});

describe('limits and errors', () => {
  it('has sensible defaults', () => {
    // Sized so the heaviest accepted model stays within the parse memory bound (docs/model-files.md).
    assert.deepEqual([DEFAULT_LIMITS.maxTriangles, DEFAULT_LIMITS.maxVertices], [10_000_000, 10_000_000]);
    assert.deepEqual([DEFAULT_LIMITS.maxXmlTokenChars, DEFAULT_LIMITS.maxXmlAttributes], [1024 * 1024, 256]);
    assert.equal(DEFAULT_LIMITS.maxInflatedBytes, 512 * 1024 * 1024);
    assert.deepEqual(
      [DEFAULT_LIMITS.maxZipEntries, DEFAULT_LIMITS.maxXmlDepth, DEFAULT_LIMITS.maxComponentDepth],
      [1000, 64, 16],
    );
  });

  it('applies overrides', () => {
    const bytes = binaryStl(cubeTriangles(1));
    refuses(() => parseModel(bytes, 'stl', { maxBytes: 100 }), 'file_too_large');
    refuses(() => parseModel(bytes, 'stl', { maxTriangles: 5 }), 'stl_too_many_triangles');
    refuses(() => parseModel(bytes, 'stl', { maxVertices: 5 }), 'too_many_vertices');
    refuses(() => parseModel(bytes, 'stl', { maxTriangles: -1 }), 'invalid_limits');
  });

  it('reports snake_case codes and sentences', () => {
    const err = refuses(() => parseFile('broken/stl_truncated.stl'), 'stl_truncated');
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'ModelError');
    assert.match(err.code, /^[a-z0-9]+(_[a-z0-9]+)*$/);
    assert.deepEqual(err.details, { declared: 12, expectedBytes: 684, size: 351 });
  });
});
