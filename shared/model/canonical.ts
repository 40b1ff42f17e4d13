// The canonical mesh handed to PrusaSlicer, written by us so the slicer never reads an upload.
//
// Usually OBJ text with only `v x y z` and `f a b c` lines, millimetres. Numbers use JavaScript's
// shortest round-trip formatting, so parsing the text gives back exactly the same doubles.
//
// A PrusaSlicer project with negative volumes needs the slicer to cut those volumes away, which OBJ
// cannot say: its canonical form is a 3MF with one object holding a model part and a negative volume,
// described in PrusaSlicer's own Metadata/Slic3r_PE_model.config. Same numbers, deterministic bytes.
//
// Output goes to a sink in slices: a 20-million-triangle mesh would exceed the engine's maximum string
// length as one string, and the server streams it to disk and to the hash without holding it whole.
import type { Mesh } from './mesh.ts';
import { type ByteSink, writeStoredZip } from './stored-zip.ts';

export type { ByteSink } from './stored-zip.ts';

const LINES_PER_SLICE = 65536;
const encoder = new TextEncoder();

export function streamCanonicalObj(mesh: Mesh, sink: ByteSink): void {
  streamLines(mesh.positions.length / 3, (v) => vertexLine(mesh.positions, v), sink);
  streamLines(mesh.indices.length / 3, (i) => faceLine(mesh.indices, i), sink);
}

const vertexLine = (p: Float64Array, v: number) => `v ${xyz(p, v)}\n`;
const faceLine = (t: Uint32Array, i: number) => `f ${t[i * 3]! + 1} ${t[i * 3 + 1]! + 1} ${t[i * 3 + 2]! + 1}\n`;

/**
 * The canonical OBJ of a mesh still being welded (an upload read as it arrives): its lines are written as its
 * vertices and faces come, so the text is ready when the mesh is. It is the text of the finished mesh only if that
 * mesh kept every vertex and face given here, in order (one whose unused vertices were dropped is written anew), and
 * it is kept only up to `maxBytes` (beyond, the finished mesh is written as usual).
 */
export class CanonicalObjDraft {
  private readonly vertexText: Uint8Array[] = [];
  private readonly faceText: Uint8Array[] = [];
  private vertices = 0;
  private faces = 0;
  private bytes = 0;
  private given = true;

  constructor(private readonly maxBytes: number) {}

  /** The lines of the mesh's vertices and faces not written yet. */
  add(mesh: Mesh): void {
    if (!this.given) return;
    const vertices = mesh.positions.length / 3;
    const faces = mesh.indices.length / 3;
    streamLines(
      vertices - this.vertices,
      (v) => vertexLine(mesh.positions, this.vertices + v),
      this.keep(this.vertexText),
    );
    streamLines(faces - this.faces, (i) => faceLine(mesh.indices, this.faces + i), this.keep(this.faceText));
    this.vertices = vertices;
    this.faces = faces;
    if (this.bytes > this.maxBytes) this.giveUp();
  }

  /** Sends the text to `sink` if it is the canonical OBJ of `mesh`; answers whether it was (nothing is sent if not). */
  streamIf(mesh: Mesh, sink: ByteSink): boolean {
    const same = this.given && mesh.positions.length / 3 === this.vertices && mesh.indices.length / 3 === this.faces;
    if (same) for (const text of [...this.vertexText, ...this.faceText]) sink(text);
    return same;
  }

  private keep(into: Uint8Array[]): ByteSink {
    return (chunk) => {
      into.push(chunk);
      this.bytes += chunk.length;
    };
  }

  private giveUp(): void {
    this.given = false;
    this.vertexText.length = 0;
    this.faceText.length = 0;
  }
}

export function writeCanonicalObj(mesh: Mesh): Uint8Array {
  return collect((sink) => streamCanonicalObj(mesh, sink));
}

const CORE = 'http://schemas.microsoft.com/3dmanufacturing/core/2015/02';
const SLIC3RPE = 'http://schemas.slic3r.org/3mf/2017/06';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
const CONTENT_TYPES =
  `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\n` +
  ' <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\n' +
  ' <Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>\n' +
  ' <Default Extension="config" ContentType="text/xml"/>\n</Types>\n';
const RELATIONSHIPS =
  `${XML_DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\n` +
  ' <Relationship Target="/3D/3dmodel.model" Id="rel0"' +
  ' Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>\n</Relationships>\n';
const MODEL_HEAD =
  `${XML_DECLARATION}<model unit="millimeter" xml:lang="en-US" xmlns="${CORE}" xmlns:slic3rpe="${SLIC3RPE}">\n` +
  ' <metadata name="slic3rpe:Version3mf">1</metadata>\n' +
  ' <resources>\n  <object id="1" type="model">\n   <mesh>\n    <vertices>\n';
const MODEL_TAIL =
  '    </triangles>\n   </mesh>\n  </object>\n </resources>\n <build>\n  <item objectid="1"/>\n </build>\n</model>\n';

/** The model part and, after it, the negative volume, as one PrusaSlicer object in a stored zip. */
export function streamCanonical3mf(part: Mesh, negative: Mesh, sink: ByteSink): void {
  const partTriangles = part.indices.length / 3,
    negativeTriangles = negative.indices.length / 3;
  const text = (s: string) => (out: ByteSink) => out(encoder.encode(s));
  writeStoredZip(
    [
      ['[Content_Types].xml', text(CONTENT_TYPES)],
      ['_rels/.rels', text(RELATIONSHIPS)],
      ['3D/3dmodel.model', (out) => streamModelXml(part, negative, out)],
      [
        'Metadata/Slic3r_PE_model.config',
        text(
          `${XML_DECLARATION}<config>\n <object id="1" instances_count="1">\n` +
            '  <metadata type="object" key="name" value="model"/>\n' +
            volumeXml(0, partTriangles - 1, 'ModelPart') +
            volumeXml(partTriangles, partTriangles + negativeTriangles - 1, 'NegativeVolume') +
            ' </object>\n</config>\n',
        ),
      ],
    ],
    sink,
  );
}

export function writeCanonical3mf(part: Mesh, negative: Mesh): Uint8Array {
  return collect((sink) => streamCanonical3mf(part, negative, sink));
}

function volumeXml(first: number, last: number, type: string): string {
  const metadata = `   <metadata type="volume" key="volume_type" value="${type}"/>\n`;
  return `  <volume firstid="${first}" lastid="${last}">\n${metadata}  </volume>\n`;
}

function streamModelXml(part: Mesh, negative: Mesh, out: ByteSink): void {
  out(encoder.encode(MODEL_HEAD));
  for (const { positions: p } of [part, negative]) {
    streamLines(
      p.length / 3,
      (v) => `<vertex x="${num(p[v * 3]!)}" y="${num(p[v * 3 + 1]!)}" z="${num(p[v * 3 + 2]!)}"/>\n`,
      out,
    );
  }
  out(encoder.encode('    </vertices>\n    <triangles>\n'));
  const partVertices = part.positions.length / 3;
  for (const [{ indices: t }, base] of [
    [part, 0],
    [negative, partVertices],
  ] as const) {
    const corner = (i: number) => t[i]! + base;
    streamLines(
      t.length / 3,
      (i) => `<triangle v1="${corner(i * 3)}" v2="${corner(i * 3 + 1)}" v3="${corner(i * 3 + 2)}"/>\n`,
      out,
    );
  }
  out(encoder.encode(MODEL_TAIL));
}

function streamLines(count: number, line: (index: number) => string, sink: ByteSink): void {
  for (let first = 0; first < count; first += LINES_PER_SLICE) {
    let text = '';
    const last = Math.min(count, first + LINES_PER_SLICE);
    for (let i = first; i < last; i++) text += line(i);
    sink(encoder.encode(text));
  }
}

function xyz(p: Float64Array, v: number): string {
  return `${num(p[v * 3]!)} ${num(p[v * 3 + 1]!)} ${num(p[v * 3 + 2]!)}`;
}

/** Shortest text that parses back to exactly `x`; -0 is written as 0. */
function num(x: number): string {
  return x === 0 ? '0' : String(x);
}

function collect(write: (sink: ByteSink) => void): Uint8Array {
  const slices: Uint8Array[] = [];
  let size = 0;
  write((chunk) => {
    slices.push(chunk);
    size += chunk.length;
  });
  const out = new Uint8Array(size);
  let offset = 0;
  for (const s of slices) {
    out.set(s, offset);
    offset += s.length;
  }
  return out;
}

/**
 * Bytes the canonical mesh takes at least, known before a byte is written: storage is reserved against it
 * (docs/limits.md, "The disk floor"). Face lines are counted exactly (their indices' digits); a vertex line is counted
 * with each coordinate at its shortest, one character (its real text is only known once written).
 */
export function canonicalBytesAtLeast(part: Mesh, negative: Mesh | null): number {
  const vertices = (mesh: Mesh) => mesh.positions.length / 3;
  // `v x y z\n` and `f a b c\n` (1-based).
  if (!negative) return vertices(part) * 8 + indexLineBytes(part.indices, 1, 5);
  // `<vertex x="x" y="y" z="z"/>\n` and `<triangle v1="a" v2="b" v3="c"/>\n`, the negative volume's indices after the part's.
  return (
    (vertices(part) + vertices(negative)) * 28 +
    indexLineBytes(part.indices, 0, 30) +
    indexLineBytes(negative.indices, vertices(part), 30)
  );
}

/** Bytes of one line per triangle: its three indices (plus `base`) in decimal, and `fixed` other characters. */
function indexLineBytes(indices: Uint32Array, base: number, fixed: number): number {
  let digits = 0;
  for (let i = 0; i < indices.length; i++) digits += digitCount(indices[i]! + base);
  return digits + (indices.length / 3) * fixed;
}

function digitCount(n: number): number {
  let d = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) d++;
  return d;
}
