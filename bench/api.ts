// End-to-end benchmarks through the HTTP API of a real server (PGlite, local disk, in-process workers).

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createApiToken } from '../server/accounts/api-tokens.ts';
import { insertAccount } from '../server/accounts/sql.ts';
import { loadConfig } from '../server/config.ts';
import { openPglite } from '../server/db/index.ts';
import { newId } from '../server/ids.ts';
import { buildSliceConfig } from '../server/slicer/config.ts';
import { buildDeps, type Running, serve } from '../server/start.ts';
import { type MeasuredServer, startMeasuredServer } from '../test/helpers/server-process.ts';

const run = promisify(execFile);
export const median = (xs: number[]): number => {
  if (xs.length === 0) throw new Error('median of no samples');
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
};

export async function boot(): Promise<{ running: Running; token: string; dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sq-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    DEMO_ACCOUNT: 'false',
    JWT_SECRET: 'bench-secret-0123456789-0123456789-abcdef',
  });
  const deps = await buildDeps(config, {
    db: await openPglite(null),
    log: { info() {}, request() {}, error: (m, e) => console.error(m, e) },
  });
  const account = await insertAccount(deps.db, {
    id: newId('usr'),
    email: 'bench@example.test',
    password_hash: 'x',
    plan: 'business',
    shop_name: null,
  });
  const { token } = await createApiToken(deps.db, config.jwtSecret, account.id, 'bench', deps.now());
  return { running: await serve(deps), token, dataDir };
}

export async function upload(url: string, token: string, bytes: Uint8Array, name: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  const res = await fetch(`${url}/v2/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { file_id: string };
}

export async function benchUploadAndQuote(modelsDir: string, runs = 5) {
  const { running, token, dataDir } = await boot();
  try {
    const benchy = new Uint8Array(readFileSync(path.join(modelsDir, 'stl', '3DBenchy.stl')));
    const uploadMs: number[] = [];
    let fileId = '';
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      fileId = (await upload(running.url, token, benchy, '3DBenchy.stl')).file_id;
      uploadMs.push(performance.now() - t);
    }
    const quote = async (body: unknown) => {
      const t = performance.now();
      const res = await fetch(`${running.url}/v2/file/quote/${fileId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { cached: boolean };
      if (res.status !== 200) throw new Error(`quote failed: ${JSON.stringify(json)}`);
      return { ms: performance.now() - t, cached: json.cached };
    };
    // Cold quote through the API versus the bare CLI on the same canonical mesh and generated config, alternating.
    const canonical = running.deps.storage.canonicalPath(fileId);
    const cold: number[] = [];
    const cli: number[] = [];
    const dir = mkdtempSync(path.join(tmpdir(), 'sq-bench-cli-'));
    for (let i = 0; i < 5; i++) {
      await running.deps.db.query('DELETE FROM slices');
      const q = await quote({ material_config: { filament_type: 'PLA' } });
      if (q.cached) throw new Error('expected a cold slice');
      cold.push(q.ms);
      const [row] = await running.deps.db.query<{ resolved: any }>(
        'SELECT resolved FROM quotes ORDER BY created_at DESC LIMIT 1',
      );
      if (!row) throw new Error('the cold quote left no row in quotes');
      writeFileSync(path.join(dir, 'config.ini'), buildSliceConfig(row.resolved.settings).ini);
      const t = performance.now();
      // The binary the server slices with (PrusaSlicer 2.9 from setup's tree; Debian's 2.5 on PATH is the fallback).
      await run(
        running.deps.config.slicerBinary,
        [
          '--loglevel',
          '1',
          '--export-gcode',
          '--load',
          path.join(dir, 'config.ini'),
          '--output',
          path.join(dir, 'out.gcode'),
          canonical,
        ],
        { maxBuffer: 64 << 20 },
      );
      cli.push(performance.now() - t);
    }
    rmSync(dir, { recursive: true, force: true });
    const cached: number[] = [];
    for (let i = 0; i < 30; i++) cached.push((await quote({ material_config: { filament_type: 'PLA' } })).ms);
    // The same on a small part, where the answer itself is small: the cost of the cached path alone.
    fileId = (
      await upload(
        running.url,
        token,
        new Uint8Array(readFileSync('demo/models/calibration-cube.stl')),
        'calibration-cube.stl',
      )
    ).file_id;
    await quote({});
    const cachedSmall: number[] = [];
    for (let i = 0; i < 60; i++) cachedSmall.push((await quote({})).ms);
    return {
      upload_and_measure_ms: { median: median(uploadMs), runs: uploadMs.map(Math.round) },
      upload_mb_per_s: +(benchy.length / 1048576 / (median(uploadMs) / 1000)).toFixed(1),
      cold_quote_ms: { median: median(cold), runs: cold.map(Math.round) },
      bare_cli_ms: { median: median(cli), runs: cli.map(Math.round) },
      cold_quote_over_cli: +(median(cold) / median(cli)).toFixed(3),
      cached_quote_ms: {
        median: +median(cached).toFixed(1),
        p95: +[...cached].sort((a, b) => a - b)[Math.floor(cached.length * 0.95)]!.toFixed(1), // 30 samples
      },
      cached_quote_small_part_ms: { median: +median(cachedSmall).toFixed(1) },
    };
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A ~200 MB binary STL: copies of 3DBenchy side by side (real geometry, 18 bodies). */
function bigStl(benchy: Buffer, copies: number): Buffer {
  const n = benchy.readUInt32LE(80);
  const out = Buffer.alloc(84 + 50 * n * copies);
  out.write('slicequote benchmark', 0);
  out.writeUInt32LE(n * copies, 80);
  for (let c = 0; c < copies; c++) {
    for (let i = 0; i < n; i++) {
      const src = 84 + 50 * i;
      const dst = 84 + 50 * (n * c + i);
      benchy.copy(out, dst, src, src + 50);
      for (let v = 0; v < 3; v++) out.writeFloatLE(benchy.readFloatLE(src + 12 + 12 * v) + 70 * c, dst + 12 + 12 * v);
    }
  }
  return out;
}

/**
 * Resident memory of a separate server process taking a 200 MB upload, on PGlite and on PostgreSQL: idle before
 * it (after the start-up settles), and the peak while it is received, parsed, measured and stored.
 */
export async function benchBigUpload(modelsDir: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-bench-big-'));
  const file = path.join(dir, 'big.stl');
  writeFileSync(file, bigStl(readFileSync(path.join(modelsDir, 'stl', '3DBenchy.stl')), 18));
  const size = readFileSync(file).length;
  const out: Record<string, unknown> = { upload_mb: +(size / 1048576).toFixed(1) };
  try {
    for (const kind of ['pglite', 'postgres'] as const) {
      const server = await startMeasuredServer(kind);
      try {
        const before = (await idleRss(server)).idle_mb;
        server.resetPeak();
        const t = performance.now();
        const res = await run('curl', [
          ...['-s', '-o', '/dev/null', '-w', '%{http_code}'],
          ...['-H', `Authorization: Bearer ${server.api.token}`, '-F', `file=@${file}`],
          `${server.process.url}/v2/file`,
        ]);
        const peak = server.rss().peak / MiB;
        out[kind] = {
          status: Number(res.stdout),
          seconds: +((performance.now() - t) / 1000).toFixed(2),
          rss_before_mb: Math.round(before),
          peak_rss_mb: Math.round(peak),
          peak_above_idle_mb: Math.round(peak - before),
        };
      } finally {
        await server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const MiB = 2 ** 20;

/** How long a server takes no requests before its memory counts as idle (V8 gives memory back some seconds after the last work). */
export const IDLE_AFTER_S = 30;

/** The RSS of a server that has been idle for IDLE_AFTER_S since it started, and the RSS 3 s after start. */
export async function idleRss(server: MeasuredServer): Promise<{ after_start_mb: number; idle_mb: number }> {
  await new Promise((r) => setTimeout(r, 3000));
  const afterStart = server.rss().current / MiB;
  await new Promise((r) => setTimeout(r, (IDLE_AFTER_S - 3) * 1000));
  return { after_start_mb: Math.round(afterStart), idle_mb: Math.round(server.rss().current / MiB) };
}
