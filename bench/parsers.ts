// Parser benchmark: median wall time to parse + weld + measure a few corpus models, and the
// canonical OBJ write. Returns plain numbers (milliseconds); bench/run.ts prints them.
import { readFileSync } from 'node:fs';
import { convexHullXY, describeShape } from '../server/mesh/footprint.ts';
import { type ModelFormat, parseModel, writeCanonicalObj } from '../shared/model/index.ts';
import { corpusPath } from '../test/helpers/corpus.ts';

const CASES: { name: string; file: string[]; format: ModelFormat }[] = [
  { name: '3DBenchy.stl', file: ['stl', '3DBenchy.stl'], format: 'stl' },
  { name: '3DBenchy.3mf', file: ['3mf', '3DBenchy.3mf'], format: '3mf' },
  { name: 'fandisk_ascii.stl', file: ['stl', 'fandisk_ascii.stl'], format: 'stl' },
  { name: 'teapot.obj', file: ['obj', 'teapot.obj'], format: 'obj' },
  { name: 'zip_bomb_refusal', file: ['broken', '3mf_zip_bomb_1GiB.3mf'], format: '3mf' },
];

function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of no samples');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(fn: () => void, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return Math.round(median(samples) * 10) / 10;
}

/** Median milliseconds per case (5 runs after one warm-up), keyed by `<case>_ms`. */
export function benchParsers(runs = 5): Record<string, number> {
  const report: Record<string, number> = {};
  for (const c of CASES) {
    const bytes = new Uint8Array(readFileSync(corpusPath(...c.file)));
    const parse = () => {
      try {
        parseModel(bytes, c.format);
      } catch {
        // The refusal cases are timed too: refusing must be fast.
      }
    };
    parse();
    report[`${c.name}_ms`] = time(parse, runs);
  }
  // A hostile OBJ: one face line of 18 MB, refused at the triangle cap (test/parsers.test.ts checks the refusal).
  const hugeLine = new TextEncoder().encode(`v 0 0 0\nv 1 0 0\nv 0 1 0\nf${' 1 2 3'.repeat(3_000_000)}\n`);
  report.huge_obj_line_refusal_ms = time(() => {
    try {
      parseModel(hugeLine, 'obj', { maxTriangles: 100_000 });
    } catch {
      // refused, as it must be
    }
  }, runs);
  const benchy = parseModel(new Uint8Array(readFileSync(corpusPath('stl', '3DBenchy.stl'))), 'stl');
  report['3DBenchy_canonical_obj_ms'] = time(() => writeCanonicalObj(benchy.mesh), runs);
  // What an upload adds for placement: the footprint and the shape facts (hulls of two more projections, flat sides).
  report['3DBenchy_footprint_and_shape_ms'] = time(() => {
    convexHullXY(benchy.mesh.positions);
    describeShape(benchy.mesh.positions, benchy.mesh.indices);
  }, runs);
  return report;
}
