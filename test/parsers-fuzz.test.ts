// Deterministic fuzzing of the model parsers: seeded random byte flips, truncations, splices and
// token substitutions of small valid samples of each format (3MF both as raw zip bytes and with
// the XML mutated inside a re-zipped package). Every case must either parse into a consistent
// result or throw a ModelError — never another error type. A case that hangs is stopped by the test's timeout;
// how fast hostile input is refused is measured by `npm run bench` (parsers, abuse-parse).
// FUZZ_SEED=<n> explores other cases; failures print the seed and case to reproduce.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { detectFormat, ModelError, type ParsedModel, parseModel } from '../shared/model/index.ts';
import { corpusBytes } from './helpers/corpus.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const CASES_PER_SAMPLE = 32;

/** mulberry32: small, fast, good enough to spread mutations. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const int = (r: Random, n: number) => Math.floor(r() * n);

const TOKENS = [
  'nan',
  'inf',
  '-0',
  '1e999',
  '-1e-999',
  '99999999999',
  '-1',
  '0',
  '',
  ' ',
  '\n',
  '<!DOCTYPE x>',
  '&amp;',
  '"',
  '<',
  '>',
  '/',
  'ï»¿',
  '\u0000',
  'facet',
  'endloop',
  'f',
  'v',
  'xmlns:q="urn:q"',
  'q:attr="1"',
];

/** One random mutation of `bytes`; returns the new bytes and a description. */
function mutate(r: Random, bytes: Uint8Array): [Uint8Array, string] {
  const out = Uint8Array.from(bytes);
  const at = int(r, Math.max(bytes.length, 1));
  switch (int(r, 6)) {
    case 0: {
      const n = 1 + int(r, 8);
      for (let k = 0; k < n; k++) out[int(r, out.length)] = int(r, 256);
      return [out, `${n} random bytes`];
    }
    case 1: {
      const n = 1 + int(r, 16);
      for (let k = 0; k < n; k++) out[int(r, out.length)]! ^= 1 << int(r, 8);
      return [out, `${n} bit flips`];
    }
    case 2:
      return [out.subarray(0, at), `truncated at ${at}`];
    case 3: {
      const len = int(r, 64);
      const to = int(r, out.length);
      const slice = out.subarray(at, at + len);
      return [concat(out.subarray(0, to), slice, out.subarray(to)), `duplicated ${len} bytes from ${at} to ${to}`];
    }
    case 4: {
      const len = 1 + int(r, 64);
      return [concat(out.subarray(0, at), out.subarray(at + len)), `deleted ${len} bytes at ${at}`];
    }
    default: {
      const token = TOKENS[int(r, TOKENS.length)]!;
      const len = int(r, 6);
      return [
        concat(out.subarray(0, at), strToU8(token), out.subarray(at + len)),
        `replaced ${len} bytes at ${at} with ${JSON.stringify(token)}`,
      ];
    }
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Mutates one part of a 3MF package (usually the model XML) and zips it again. */
function mutatePackage(r: Random, bytes: Uint8Array): [Uint8Array, string] {
  const files = unzipSync(bytes);
  const names = Object.keys(files).filter((n) => !n.endsWith('/'));
  const model = names.find((n) => n.endsWith('.model'))!;
  const target = r() < 0.8 ? model : names[int(r, names.length)]!;
  const part = files[target];
  assert.ok(part, target);
  const [mutated, how] = mutate(r, part);
  files[target] = Uint8Array.from(mutated);
  return [zipSync(files), `${target}: ${how}`];
}

const SAMPLES: { name: string; path: string[] }[] = [
  { name: 'cube20_ascii.stl', path: ['stl', 'cube20_ascii.stl'] },
  { name: 'cube20_header_says_solid.stl', path: ['stl', 'cube20_header_says_solid.stl'] },
  { name: 'two_cubes_10mm.stl', path: ['stl', 'two_cubes_10mm.stl'] },
  { name: 'obj_negative_indices_ok.obj', path: ['broken', 'obj_negative_indices_ok.obj'] },
  { name: 'suzanne.obj', path: ['obj', 'suzanne.obj'] },
  { name: 'box.3mf', path: ['3mf', 'conformance', 'examples', 'box.3mf'] },
  { name: 'components.3mf', path: ['3mf', 'conformance', 'mustpass', 'MUSTPASS_Chapter4.2_Components.3mf'] },
  {
    name: 'materials.3mf',
    path: ['3mf', 'conformance', 'mustpass', 'MUSTPASS_Chapter3.4.2_MetaData_Resources_Build.3mf'],
  },
  { name: 'cube10_inch_units.3mf', path: ['3mf', 'cube10_inch_units.3mf'] },
];

/** A successful parse must be internally consistent. */
function checkResult(r: ParsedModel): void {
  const { positions, indices } = r.mesh;
  const vertices = positions.length / 3;
  assert.ok(indices.length > 0 && indices.length % 3 === 0);
  assert.equal(r.measurements.triangles, indices.length / 3);
  for (const i of indices) assert.ok(i < vertices);
  for (const v of positions) assert.ok(Number.isFinite(v));
  const m = r.measurements;
  for (const x of [m.volume_mm3, m.surface_area_mm2, ...m.bbox.min, ...m.bbox.max, ...m.bbox.size])
    assert.ok(Number.isFinite(x));
  assert.ok(m.bodies >= 1);
}

describe(`parser fuzzing (seed ${SEED})`, () => {
  for (const [s, sample] of SAMPLES.entries()) {
    it(`${sample.name}: ${CASES_PER_SAMPLE} mutations parse or throw ModelError`, () => {
      const original = corpusBytes(...sample.path);
      const r = rng(SEED + s * 7919);
      const outcomes = { parsed: 0, refused: 0 };
      for (let c = 0; c < CASES_PER_SAMPLE; c++) {
        const structured = sample.name.endsWith('.3mf') && r() < 0.6;
        const [bytes, how] = structured ? mutatePackage(r, original) : mutate(r, original);
        const label = `seed ${SEED}, ${sample.name} case ${c}: ${how}`;
        try {
          checkResult(parseModel(bytes, detectFormat(sample.name, bytes) ?? undefined));
          outcomes.parsed++;
        } catch (err) {
          if (!(err instanceof ModelError))
            assert.fail(`${label} threw ${err instanceof Error ? err.stack : String(err)}`);
          assert.match(err.code, /^[a-z0-9]+(_[a-z0-9]+)*$/, label);
          outcomes.refused++;
        }
      }
      assert.equal(outcomes.parsed + outcomes.refused, CASES_PER_SAMPLE);
    });
  }

  it('parses what the mutations start from', () => {
    for (const sample of SAMPLES) {
      const bytes = corpusBytes(...sample.path);
      checkResult(parseModel(bytes, detectFormat(sample.name, bytes) ?? undefined));
    }
  });

  it('survives the model XML being replaced by random text', () => {
    const r = rng(SEED);
    const files = unzipSync(corpusBytes('3mf', 'conformance', 'examples', 'box.3mf'));
    assert.ok(files['3D/3dmodel.model'], 'box.3mf has a model part');
    for (let c = 0; c < 16; c++) {
      const xml = strFromU8(files['3D/3dmodel.model']);
      const cut = int(r, xml.length);
      files['3D/3dmodel.model'] = strToU8(
        xml.slice(0, cut) + TOKENS.map(() => TOKENS[int(r, TOKENS.length)]).join('') + xml.slice(cut),
      );
      try {
        checkResult(parseModel(zipSync(files), '3mf'));
      } catch (err) {
        assert.ok(err instanceof ModelError, `case ${c}: ${String(err)}`);
      }
    }
  });
});
