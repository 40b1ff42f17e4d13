// `npm run bench -- idle-memory`: a server's resident memory 30 s after start with no requests (as `bench -- http`
// reads it), on PGlite and on PostgreSQL, over several starts one after the other: what an idle server holds
// differs from one start to the next, so one start says little. Each start is measured twice, in turns: as
// `npm start` runs it (scripts/serve.sh, with its allocator settings) and as plain node with glibc's own.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startMeasuredServer } from '../test/helpers/server-process.ts';
import { idleRss } from './api.ts';
import { RSS_TARGET_MB } from './http.ts';

const STARTS = Number(process.env.IDLE_MEMORY_STARTS ?? 3);

/** A node for serve.sh to run that drops the allocator settings first: the server on glibc's own behaviour. */
function plainNode(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'sq-plain-node-')), 'node');
  writeFileSync(
    file,
    `#!/bin/sh\nunset MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_\nexec '${process.execPath}' "$@"\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchIdleMemory() {
  const plain = plainNode();
  const variants = { 'scripts/serve.sh': {}, 'plain node': { NODE: plain } };
  try {
    return {
      starts: STARTS,
      pglite: await idleStarts('pglite', variants),
      postgres: await idleStarts('postgres', variants),
    };
  } finally {
    rmSync(path.dirname(plain), { recursive: true, force: true });
  }
}

/** STARTS starts of one server, each started once per variant (its environment), in turns. */
async function idleStarts(kind: 'pglite' | 'postgres', variants: Record<string, Record<string, string>>) {
  const idle: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let start = 0; start < STARTS; start++) {
    for (const [name, env] of Object.entries(variants)) {
      const server = await startMeasuredServer(kind, env);
      try {
        idle[name]!.push((await idleRss(server)).idle_mb);
      } finally {
        await server.stop();
      }
    }
  }
  return Object.fromEntries(
    Object.entries(idle).map(([name, mb]) => [
      name,
      { idle_mb: mb, median_mb: median(mb), max_mb: Math.max(...mb), target_mb: `≤ ${RSS_TARGET_MB[kind]}` },
    ]),
  );
}
