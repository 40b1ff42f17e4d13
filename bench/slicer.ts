// Slicer benchmark: our sliceOnce against the bare PrusaSlicer CLI on the same mesh and config file
// (runs alternate so drift hits both alike), throughput of a full pool, and what a quote costs after a
// change of one setting (through the API: a cached slice or a new one).
// Run alone: node --import tsx bench/slicer.ts [setting-change]
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path, { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildSliceConfig } from '../server/slicer/config.ts';
import { DEFAULT_BINARY, detectSlicer, type SlicerInfo, sliceOnce } from '../server/slicer/engine.ts';
import { createSlicePool } from '../server/slicer/pool.ts';
import { DEFAULT_SETTINGS } from '../shared/settings.ts';
import { boot, upload } from './api.ts';

const run = promisify(execFile);

export interface SlicerBenchOptions {
  meshPath?: string;
  runs?: number;
  /** Slices sent at once to the pool; default 2 × pool size. */
  throughputSlices?: number;
  poolSize?: number;
  binary?: string;
}

export interface SlicerBenchResult {
  slicer: SlicerInfo;
  mesh: string;
  runs: number;
  cli_ms: number[];
  engine_ms: number[];
  cli_median_ms: number;
  engine_median_ms: number;
  /** engine / bare CLI: the cost of our wrapper (temp folder, config, G-code parse). */
  ratio: number;
  throughput: { pool_size: number; slices: number; wall_ms: number; slices_per_minute: number };
}

const median = (xs: number[]): number => {
  if (xs.length === 0) throw new Error('median of no samples');
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;

async function timeCli(binary: string, dir: string, meshPath: string): Promise<number> {
  const t0 = performance.now();
  await run(
    binary,
    [
      '--loglevel',
      '1',
      '--export-gcode',
      '--load',
      join(dir, 'config.ini'),
      '--output',
      join(dir, 'out.gcode'),
      meshPath,
    ],
    { maxBuffer: 1 << 24 },
  );
  return performance.now() - t0;
}

/** The bare PrusaSlicer CLI on a mesh with the default settings, in a folder of its own: the yardstick. */
export async function bareSliceMs(meshPath: string, binary = DEFAULT_BINARY): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'slicequote-bench-bare-'));
  try {
    await writeFile(join(dir, 'config.ini'), buildSliceConfig(DEFAULT_SETTINGS).ini);
    return await timeCli(binary, dir, meshPath);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * How many cores one bare slice keeps busy: its CPU time (user + system, read by the shell's `times`) over its
 * wall time. Several worker processes can gain at most the machine's cores divided by this.
 */
export async function bareSliceCores(meshPath: string, binary = DEFAULT_BINARY) {
  const dir = await mkdtemp(join(tmpdir(), 'slicequote-bench-cores-'));
  try {
    await writeFile(join(dir, 'config.ini'), buildSliceConfig(DEFAULT_SETTINGS).ini);
    const cli = [binary, '--loglevel', '1', '--export-gcode', '--load', join(dir, 'config.ini')];
    const script = `"$@" --output "${join(dir, 'out.gcode')}" "${meshPath}" >/dev/null 2>&1; times`;
    const t0 = performance.now();
    const { stdout } = await run('bash', ['-c', script, 'slice', ...cli]);
    const wallMs = performance.now() - t0;
    // `times` prints the shell's user and system time, then its children's: "0m4.120s 0m0.310s".
    const children = stdout.trim().split('\n').pop() ?? '';
    const cpuMs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
      (t, m) => t + (Number(m[1]) * 60 + Number(m[2])) * 1000,
      0,
    );
    return { wall_ms: Math.round(wallMs), cpu_ms: Math.round(cpuMs), cores_busy: round(cpuMs / wallMs, 2) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function timeEngine(binary: string, meshPath: string): Promise<number> {
  const t0 = performance.now();
  await sliceOnce({ meshPath, settings: DEFAULT_SETTINGS, binary, timeoutMs: 600_000 });
  return performance.now() - t0;
}

async function throughput(
  binary: string,
  meshPath: string,
  size: number,
  slices: number,
): Promise<SlicerBenchResult['throughput']> {
  const pool = createSlicePool({ size, maxQueue: slices, binary, timeoutMs: 600_000 });
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: slices }, () => pool.slice({ meshPath, settings: DEFAULT_SETTINGS })));
  } finally {
    await pool.close();
  }
  const wall = performance.now() - t0;
  return { pool_size: size, slices, wall_ms: round(wall), slices_per_minute: round((slices * 60_000) / wall, 2) };
}

export async function benchSlicer(o: SlicerBenchOptions = {}): Promise<SlicerBenchResult> {
  const mesh = o.meshPath ?? path.resolve('test', 'fixtures', 'models', 'stl', '3DBenchy.stl');
  const runs = o.runs ?? 3;
  const slicer = await detectSlicer(o.binary ?? DEFAULT_BINARY);
  const dir = await mkdtemp(join(tmpdir(), 'slicequote-bench-'));
  const cli: number[] = [];
  const engine: number[] = [];
  try {
    await writeFile(join(dir, 'config.ini'), buildSliceConfig(DEFAULT_SETTINGS).ini);
    await timeEngine(slicer.binary, mesh); // warm the page cache and the version probe
    for (let i = 0; i < runs; i++) {
      cli.push(await timeCli(slicer.binary, dir, mesh));
      engine.push(await timeEngine(slicer.binary, mesh));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const size = o.poolSize ?? availableParallelism();
  const [cliMed, engMed] = [median(cli), median(engine)];
  return {
    slicer,
    mesh,
    runs,
    cli_ms: cli.map((x) => round(x)),
    engine_ms: engine.map((x) => round(x)),
    cli_median_ms: round(cliMed),
    engine_median_ms: round(engMed),
    ratio: round(engMed / cliMed, 3),
    throughput: await throughput(slicer.binary, mesh, size, o.throughputSlices ?? size * 2),
  };
}

/** One change each from the same base request; fill_density is the control that must re-slice. */
const SETTING_CHANGES: [name: string, body: Record<string, Record<string, unknown>>][] = [
  ['temperature', { material_config: { temperature: 225 } }],
  ['fan_speed', { material_config: { fan_speed: 50 } }],
  ['density', { material_config: { density: 1.27 } }],
  ['diameter', { material_config: { diameter: 2.85 } }],
  ['fill_density (control)', { printer_config: { fill_density: 25 } }],
];

/** Wall time of a quote, through the API, after a change of one setting from an already sliced request. */
export async function benchSettingChange(meshPath = path.resolve('test', 'fixtures', 'models', 'stl', '3DBenchy.stl')) {
  const { running, token, dataDir } = await boot();
  try {
    const { file_id } = await upload(running.url, token, new Uint8Array(readFileSync(meshPath)), basename(meshPath));
    const quote = async (body: Record<string, Record<string, unknown>>) => {
      const t0 = performance.now();
      const res = await fetch(`${running.url}/v2/file/quote/${file_id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, material_config: { filament_type: 'PLA', ...body.material_config } }),
      });
      const json = (await res.json()) as { cached?: boolean };
      if (res.status !== 200) throw new Error(`quote failed: ${res.status} ${JSON.stringify(json)}`);
      return { ms: round(performance.now() - t0), cached: json.cached ?? false };
    };
    const base = await quote({});
    const changes: Record<string, { ms: number; cached: boolean }> = {};
    for (const [name, body] of SETTING_CHANGES) changes[name] = await quote(body);
    return { mesh: meshPath, base_quote: base, changes };
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = process.argv[2] === 'setting-change' ? await benchSettingChange() : await benchSlicer();
  console.log(JSON.stringify(result, null, 2));
}
