// The canonical mesh handed to PrusaSlicer: OBJ text with only `v x y z` and `f a b c` lines,
// millimetres. Numbers use JavaScript's shortest round-trip formatting, so parsing the text
// gives back exactly the same doubles. Output is encoded in slices because a 20-million-
// triangle mesh would exceed the engine's maximum string length as a single string.
import type { Mesh } from './mesh.ts';

const LINES_PER_SLICE = 65536;

export function writeCanonicalObj(mesh: Mesh): Uint8Array {
  const encoder = new TextEncoder();
  const slices: Uint8Array[] = [];
  const p = mesh.positions, t = mesh.indices;
  const vertexCount = p.length / 3, triangleCount = t.length / 3;
  for (let first = 0; first < vertexCount; first += LINES_PER_SLICE) {
    let text = '';
    const last = Math.min(vertexCount, first + LINES_PER_SLICE);
    for (let v = first; v < last; v++) text += `v ${num(p[v * 3])} ${num(p[v * 3 + 1])} ${num(p[v * 3 + 2])}\n`;
    slices.push(encoder.encode(text));
  }
  for (let first = 0; first < triangleCount; first += LINES_PER_SLICE) {
    let text = '';
    const last = Math.min(triangleCount, first + LINES_PER_SLICE);
    for (let i = first * 3; i < last * 3; i += 3) text += `f ${t[i] + 1} ${t[i + 1] + 1} ${t[i + 2] + 1}\n`;
    slices.push(encoder.encode(text));
  }
  return join(slices);
}

/** Shortest text that parses back to exactly `x`; -0 is written as 0. */
function num(x: number): string {
  return x === 0 ? '0' : String(x);
}

function join(slices: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const s of slices) size += s.length;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const s of slices) {
    out.set(s, offset);
    offset += s.length;
  }
  return out;
}
