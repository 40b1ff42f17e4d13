// A parse flood against honest uploads (docs/limits.md, "Fair parsing"), on a real server process (PGlite),
// loopback only, each client bound to its own 127.0.0.x source address: 20 honest 3 KB STL uploads from one
// address, one after another, first alone, then while four attacker addresses each upload a slow 3MF. Two
// attacks: the 1.3 MB 3MFs holding 524 MB of <vertex> XML (refused on their stated compression ratio), and the
// slowest 3MFs the ratio admits (64 MB of XML read in full, then refused). Then thirty addresses (127.0.2.x) each
// upload one small, slow 3MF (half 16 KB stating 16 MiB of <vertex> XML, half 50 KB placing 10 million vertices by
// instancing) while another address uploads its 3 KB STLs. Prints the honest upload time p50/p95/max of each run
// and the attacker uploads' answers and times. Bounded: 80 honest and 38 attacker uploads.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { uploadFrom } from '../test/helpers/from-address.ts';
import { hostile3mf, hostileCase, instancingBomb, slowWithinRatio3mf } from '../test/helpers/hostile.ts';
import { type MeasuredServer, startMeasuredServer } from '../test/helpers/server-process.ts';

const HONEST_UPLOADS = 20;
const ATTACKERS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
const MANY = Array.from({ length: 30 }, (_, i) => `127.0.2.${i + 1}`);

/** A 3MF of about 16 KB stating 16 MiB (what any 3MF may inflate to) of <vertex> elements, then no triangles. */
function ratioFree3mf(): Uint8Array {
  const unit = '<vertex x="0" y="0" z="0"/>';
  const head =
    '<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><resources><object id="1"><mesh><vertices>';
  const tail = '</vertices><triangles/></mesh></object></resources><build><item objectid="1"/></build></model>';
  const perChunk = Math.floor((1 << 20) / unit.length);
  const times = Math.floor((16 * (1 << 20) - head.length - tail.length - 4096) / (perChunk * unit.length));
  return hostile3mf([{ bytes: head }, { bytes: unit.repeat(perChunk), times }, { bytes: tail }]);
}

interface Answer {
  status: number;
  code: string;
  ms: number;
}

async function publicUpload(server: MeasuredServer, address: string, bytes: Uint8Array, name: string) {
  const id = await server.api.get('/v2/file/upload-id');
  if (id.status !== 200) throw new Error(`upload id: ${id.status}`);
  const started = performance.now();
  const res = await uploadFrom(server.process.url, `/v2/file/public/${id.body.upload_id}`, address, bytes, name);
  const code = res.status === 201 ? 'stored' : String(res.body?.error?.code);
  return { status: res.status, code, ms: Math.round(performance.now() - started) } satisfies Answer;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;

/** Honest uploads one after another from `address`: their p50/p95 and any that were not stored. */
async function honestRun(server: MeasuredServer, address: string, cube: Uint8Array) {
  const answers: Answer[] = [];
  for (let i = 0; i < HONEST_UPLOADS; i++) answers.push(await publicUpload(server, address, cube, 'cube.stl'));
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  return {
    p50_ms: percentile(ms, 0.5),
    p95_ms: percentile(ms, 0.95),
    max_ms: ms.at(-1),
    not_stored: answers.filter((a) => a.status !== 201).map((a) => a.code),
  };
}

/** The attackers' uploads start together; the honest run starts once all are sent. */
async function underAttack(
  server: MeasuredServer,
  honestAddress: string,
  cube: Uint8Array,
  attack: Uint8Array | ((i: number) => Uint8Array),
  addresses = ATTACKERS,
) {
  const fileOf = typeof attack === 'function' ? attack : () => attack;
  const flood = addresses.map((address, i) => publicUpload(server, address, fileOf(i), 'slow.3mf'));
  const honest = await honestRun(server, honestAddress, cube);
  return { honest, attacker: summary(await Promise.all(flood)) };
}

/** Each attacker answer code with how many and their slowest time. */
function summary(answers: Answer[]) {
  const by: Record<string, { count: number; max_ms: number }> = {};
  for (const a of answers) {
    const entry = by[a.code] ?? { count: 0, max_ms: 0 };
    by[a.code] = entry;
    entry.count++;
    entry.max_ms = Math.max(entry.max_ms, a.ms);
  }
  return by;
}

export async function benchAbuseParse(modelsDir: string): Promise<Record<string, unknown>> {
  const cube = new Uint8Array(readFileSync(path.join(modelsDir, 'stl', 'cube20_ascii.stl')));
  const server = await startMeasuredServer('pglite');
  try {
    // Warm-up: the workers load, as they are on a server that has been running.
    await publicUpload(server, '127.0.0.8', cube, 'cube.stl');
    const bomb = hostileCase('3mf_vertex_flood').build();
    const slow = slowWithinRatio3mf();
    const ratioFree = ratioFree3mf();
    // A strip of 2,002 vertices placed 5,000 times: 10 million vertices, refused once placed.
    const instancing = instancingBomb(1000, 5000);
    return {
      honest_upload_bytes: cube.length,
      alone: await honestRun(server, '127.0.0.9', cube),
      ratio_bombs: { attack_file_bytes: bomb.length, ...(await underAttack(server, '127.0.0.10', cube, bomb)) },
      slowest_admitted: { attack_file_bytes: slow.length, ...(await underAttack(server, '127.0.0.11', cube, slow)) },
      many_addresses: {
        attack_file_bytes: [ratioFree.length, instancing.length],
        ...(await underAttack(server, '127.0.0.12', cube, (i) => (i % 2 ? instancing : ratioFree), MANY)),
      },
    };
  } finally {
    await server.stop();
  }
}
