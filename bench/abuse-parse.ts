// A parse flood against honest uploads (docs/limits.md, "Fair parsing"), on a real server process (PGlite),
// loopback only, each client bound to its own 127.0.0.x source address: 20 honest 3 KB STL uploads from one
// address, one after another, first alone, then while four attacker addresses each upload a slow 3MF. Two
// attacks: the 1.3 MB 3MFs holding 524 MB of <vertex> XML (refused on their stated compression ratio), and the
// slowest 3MFs the ratio admits (64 MB of XML read in full, then refused). Prints the honest upload time
// p50/p95 of each run and each attacker upload's answer and time. Bounded: 60 honest and 8 attacker uploads.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startMeasuredServer, type MeasuredServer } from '../test/helpers/server-process.ts';
import { uploadFrom } from '../test/helpers/from-address.ts';
import { hostileCase, slowWithinRatio3mf } from '../test/helpers/hostile.ts';

const HONEST_UPLOADS = 20;
const ATTACKERS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];

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

/** The attackers' uploads start together; the honest run starts once all four are sent. */
async function underAttack(server: MeasuredServer, honestAddress: string, cube: Uint8Array, attack: Uint8Array) {
  const flood = ATTACKERS.map((address) => publicUpload(server, address, attack, 'slow.3mf'));
  const honest = await honestRun(server, honestAddress, cube);
  return { honest, attacker: await Promise.all(flood) };
}

export async function benchAbuseParse(modelsDir: string): Promise<Record<string, unknown>> {
  const cube = new Uint8Array(readFileSync(path.join(modelsDir, 'stl', 'cube20_ascii.stl')));
  const server = await startMeasuredServer('pglite');
  try {
    // Warm-up: the workers load, as they are on a server that has been running.
    await publicUpload(server, '127.0.0.8', cube, 'cube.stl');
    const bomb = hostileCase('3mf_vertex_flood').build();
    const slow = slowWithinRatio3mf();
    return {
      honest_upload_bytes: cube.length,
      alone: await honestRun(server, '127.0.0.9', cube),
      ratio_bombs: { attack_file_bytes: bomb.length, ...(await underAttack(server, '127.0.0.10', cube, bomb)) },
      slowest_admitted: { attack_file_bytes: slow.length, ...(await underAttack(server, '127.0.0.11', cube, slow)) },
    };
  } finally {
    await server.stop();
  }
}
