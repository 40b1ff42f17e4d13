// One real slice: PrusaSlicer's CLI on a mesh with a generated config, in a private work folder that is
// always removed (workdirs.ts sweeps what a killed process left). No shell; argv holds only fixed names (the
// mesh is symlinked in under a fixed name). The slicer dies with our process where setpriv allows.
import { rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { type ResolvedSettings, validateResolvedSettings } from '../../shared/settings.ts';
import { slicerChoice } from '../config.ts';
import { buildSliceConfig } from './config.ts';
import { SettingsInvalidError, SliceAbortedError, SliceFailedError, SliceTimeoutError } from './errors.ts';
import { parseGcodeFile, type SliceMeasure } from './gcode-stats.ts';
import type { PatternUsed } from './patterns.ts';
import { type ChildControl, parentDeathSignal, type RunResult, runProcess } from './process.ts';
import { makeWorkDir, recordSlicer } from './workdirs.ts';

/** The server's slicer when none is named: PRUSA_SLICER_BIN, else the 2.9 tree setup installed, else 2.5. */
export const DEFAULT_BINARY = slicerChoice().binary;
export const DEFAULT_TIMEOUT_MS = 120_000;
/**
 * A slice may use its time limit in CPU time (PrusaSlicer's threads together), so a host loaded by other work does
 * not cut an honest slice short, however long it takes; a slicer that uses no CPU time for STALL_FACTOR times its
 * limit (the pool's pauses aside; 5 minutes for a quote's least limit) is stalled and killed. Long: someone else
 * may hold it stopped for a while (an operator's SIGSTOP), and only a slicer that is truly stuck should be lost.
 */
const STALL_FACTOR = 5;
const limitOf = (cpuMs: number) => ({ cpuMs, stallMs: cpuMs * STALL_FACTOR });

export interface SlicerInfo {
  name: 'PrusaSlicer';
  version: string;
  binary: string;
}

export interface SliceOnceOptions {
  /** Canonical mesh (OBJ in mm; STL and 3MF also load). */
  meshPath: string;
  settings: ResolvedSettings;
  binary?: string;
  /** The CPU time the slicer may use, ms; it is stalled after STALL_FACTOR times as long without using any. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called once the slicer process has ended, whatever the outcome, with the CPU ms it used (null without /proc). */
  onCpuTime?: (ms: number | null) => void;
  /** Folder for the private work folders (default os.tmpdir()). */
  tmpRoot?: string;
  /** Scale and rotation applied to the mesh before slicing (its placement on the plate). */
  transform?: SliceTransform;
  /** The slicer's own progress as it reports it: a percentage and the stage it has reached. */
  onProgress?: (progress: SliceProgress) => void;
  /** Scheduling niceness of the slicer process: a long or speculative slice yields the cores to short ones. */
  niceness?: number;
  /** Called once the slicer runs, with the means to pause, resume and renice it (the pool's short lane). */
  onControl?: (control: ChildControl) => void;
}

export interface SliceProgress {
  percent: number;
  stage: string;
}

/** PrusaSlicer's console reports each stage as "<percent> => <stage>", e.g. "20 => Generating perimeters". */
const PROGRESS_LINE = /^(\d{1,3}) => ([^\r\n]{1,80})$/gm;

/** Reads progress lines from the slicer's output as it arrives (a line may be split across two chunks). */
export function progressReader(report: (progress: SliceProgress) => void): (chunk: string) => void {
  let pending = '';
  return (chunk) => {
    const text = pending + chunk;
    const end = text.lastIndexOf('\n');
    pending = end < 0 ? text.slice(-200) : text.slice(end + 1);
    for (const m of (end < 0 ? '' : text.slice(0, end)).matchAll(PROGRESS_LINE)) {
      const percent = Number(m[1]);
      if (percent <= 100) report({ percent, stage: m[2]! });
    }
  };
}

/** Uniform scale, then degrees about X, then Y, then Z: PrusaSlicer applies its CLI transforms in that order. */
export interface SliceTransform {
  scale: number;
  rotate_x: number;
  rotate_y: number;
  rotate_z: number;
}

export const isIdentity = (t: SliceTransform) =>
  t.scale === 1 && t.rotate_x === 0 && t.rotate_y === 0 && t.rotate_z === 0;

/** PrusaSlicer CLI arguments for a transform (none for the identity). */
export function transformArgs(t: SliceTransform | undefined): string[] {
  if (!t || isIdentity(t)) return [];
  const values = [t.scale, t.rotate_x, t.rotate_y, t.rotate_z];
  if (!values.every(Number.isFinite) || !(t.scale > 0))
    throw new SliceFailedError('invalid mesh transform', 'slice_failed', JSON.stringify(t));
  const arg = (flag: string, value: number, neutral: number) => (value === neutral ? [] : [flag, String(value)]);
  return [
    ...arg('--scale', t.scale, 1),
    ...arg('--rotate-x', t.rotate_x, 0),
    ...arg('--rotate-y', t.rotate_y, 0),
    ...arg('--rotate', t.rotate_z, 0),
  ];
}

export interface SliceOutcome {
  /** Volume, time and layers: grams and filament length follow from the material (print-stats.ts). */
  stats: SliceMeasure;
  patternUsed: PatternUsed;
  slicer: SlicerInfo;
  /** Perimeters after the min/max wall count clamp. */
  perimeters: number;
  /** The whole slice: PrusaSlicer's run and the reading of its G-code, wall time. */
  durationMs: number;
  /** PrusaSlicer's CPU time (all its threads); null without /proc. */
  cpuMs: number | null;
  /** Of which reading the G-code. */
  gcodeReadMs: number;
}

const MESH_EXTENSIONS = new Set(['.obj', '.stl', '.3mf', '.amf']);
const detected = new Map<string, Promise<SlicerInfo>>();

function childEnv(home: string): NodeJS.ProcessEnv {
  // A private HOME keeps the user's PrusaSlicer presets out; LC_ALL=C keeps '.' as the decimal point.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home, LC_ALL: 'C', LANG: 'C' };
}

async function probe(binary: string): Promise<SlicerInfo> {
  const home = await makeWorkDir(tmpdir(), 'probe');
  try {
    const dieWithParent = await parentDeathSignal();
    const env = childEnv(home);
    const r = await runProcess({ binary, args: ['--help'], cwd: home, env, limit: limitOf(15_000), dieWithParent });
    const m = /^PrusaSlicer-(\d+\.\d+\.\d+)/m.exec(r.stdout);
    if (!m)
      throw new SliceFailedError(
        `${binary} is not a working PrusaSlicer`,
        'slicer_unavailable',
        r.spawnError?.message ?? r.stderr.slice(-300),
      );
    return { name: 'PrusaSlicer', version: m[1]!, binary };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Name and version of the slicer (from the first line of `--help`), probed once per process and binary. */
export function detectSlicer(binary: string = DEFAULT_BINARY): Promise<SlicerInfo> {
  let p = detected.get(binary);
  if (!p) {
    p = probe(binary);
    detected.set(binary, p);
    p.catch(() => detected.delete(binary)); // a later call may find it installed
  }
  return p;
}

/** The message a person can act on: PrusaSlicer's own error text without log noise. */
export function slicerMessage(r: Pick<RunResult, 'stdout' | 'stderr'>): string {
  const what = /what\(\):\s*(.+)/.exec(r.stderr);
  if (what) return what[1]!.trim();
  const logPrefix = /^\[[^\]]*\] \[0x[0-9a-f]+\] \[(\w+)\]\s*/;
  const lines = `${r.stderr}\n${r.stdout}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^\d+ => /.test(l) && !/\[(trace|debug|info)\]/.test(logPrefix.exec(l)?.[0] ?? ''))
    .map((l) => l.replace(logPrefix, ''));
  return [...new Set(lines)].join(' ').slice(0, 500) || 'PrusaSlicer failed without a message';
}

/** 2.5 aborts with "Objects could not fit on the bed"; 2.9 says "All objects are outside of the print volume."
 *  (the height included) and exits 0 without writing G-code. */
const OUTSIDE_BED = /could not fit on the bed|outside of the print volume/i;

/** Whether the slicer failed: a kill, an exit code, or 2.9's refusal of a model outside the build volume. */
const failed = (r: RunResult) =>
  r.killed || r.spawnError || r.code !== 0 || OUTSIDE_BED.test(`${r.stdout}\n${r.stderr}`);

function failure(r: RunResult, timeoutMs: number, signal?: AbortSignal): Error {
  if (r.killed === 'cpu') return new SliceTimeoutError(timeoutMs, 'cpu');
  if (r.killed === 'stalled') return new SliceTimeoutError(timeoutMs * STALL_FACTOR, 'stalled');
  if (r.killed === 'abort') return new SliceAbortedError(signal?.reason);
  if (r.spawnError)
    return new SliceFailedError(`cannot run PrusaSlicer: ${r.spawnError.message}`, 'slicer_unavailable');
  const msg = slicerMessage(r);
  if (/no extrusions in the first layer/i.test(msg)) {
    return new SliceFailedError(
      'The model touches the build plate only at a point or an edge, so its first layer is empty; rotate it so a flat face rests on the plate.',
      'first_layer_empty',
      msg,
    );
  }
  if (OUTSIDE_BED.test(msg)) {
    return new SliceFailedError(
      'The model does not fit in the build volume (bed_size_x, bed_size_y, bed_size_z) at this size and orientation.',
      'exceeds_build_volume',
      msg,
    );
  }
  const code = 'slice_failed';
  return new SliceFailedError(`PrusaSlicer could not slice the model: ${msg}`, code, `exit ${r.code ?? r.exitSignal}`);
}

async function linkMesh(dir: string, meshPath: string): Promise<string> {
  const ext = extname(meshPath).toLowerCase();
  if (!MESH_EXTENSIONS.has(ext)) throw new SliceFailedError(`unsupported mesh file type "${ext}"`, 'slice_failed');
  const abs = resolve(meshPath);
  await stat(abs).catch(() => {
    throw new SliceFailedError('mesh file not found', 'slice_failed', abs);
  });
  const name = `model${ext}`;
  await symlink(abs, join(dir, name));
  return name;
}

function checkHeight(stats: SliceMeasure, s: ResolvedSettings): void {
  // PrusaSlicer's CLI checks the bed outline but not the height, so we do (from the last layer's Z).
  if (stats.max_z_mm > s.printer.bed_size_z + 1e-6) {
    throw new SliceFailedError(
      `the model is ${stats.max_z_mm} mm tall but the build volume is only ${s.printer.bed_size_z} mm high (bed_size_z)`,
      'exceeds_build_volume',
    );
  }
}

/** Runs PrusaSlicer in its work folder, recording its pid there so the next start's sweep can reap a slicer
 *  that outlived this process (workdirs.ts). */
async function runSlicer(
  dir: string,
  model: string,
  binary: string,
  timeoutMs: number,
  o: Pick<SliceOnceOptions, 'signal' | 'onProgress' | 'niceness' | 'onCpuTime' | 'onControl'>,
  placement: string[],
) {
  const { signal, onProgress, niceness, onCpuTime, onControl } = o;
  const args = [
    '--loglevel',
    '1',
    '--datadir',
    'datadir',
    '--export-gcode',
    '--load',
    'config.ini',
    ...placement,
    '--output',
    'out.gcode',
    model,
  ];
  let recorded: Promise<void> = Promise.resolve();
  const onSpawn = (pid: number) => {
    recorded = recordSlicer(dir, pid).catch(() => {});
  };
  const dieWithParent = await parentDeathSignal();
  const onStdout = onProgress && progressReader(onProgress);
  const env = childEnv(dir);
  const r = await runProcess({
    binary,
    args,
    cwd: dir,
    env,
    limit: limitOf(timeoutMs),
    signal,
    dieWithParent,
    onSpawn,
    onStdout,
    niceness,
    onControl,
  });
  if (!r.spawnError) onCpuTime?.(r.cpuMs);
  await recorded;
  return r;
}

export async function sliceOnce(o: SliceOnceOptions): Promise<SliceOutcome> {
  const started = performance.now();
  if (o.signal?.aborted) throw new SliceAbortedError(o.signal.reason);
  const issues = validateResolvedSettings(o.settings); // PrusaSlicer's own refusals are less clear
  if (issues.length) throw new SettingsInvalidError(issues);
  const slicer = await detectSlicer(o.binary ?? DEFAULT_BINARY);
  const config = buildSliceConfig(o.settings);
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const dir = await makeWorkDir(o.tmpRoot ?? tmpdir());
  try {
    const model = await linkMesh(dir, o.meshPath);
    await writeFile(join(dir, 'config.ini'), config.ini);
    const r = await runSlicer(dir, model, slicer.binary, timeoutMs, o, transformArgs(o.transform));
    if (failed(r)) throw failure(r, timeoutMs, o.signal);
    const reading = performance.now();
    const stats = await parseGcodeFile(join(dir, 'out.gcode'), { filamentDiameter: config.filamentDiameter }).catch(
      (e: Error) => {
        throw new SliceFailedError(`PrusaSlicer wrote no usable G-code: ${e.message}`, 'bad_output');
      },
    );
    checkHeight(stats, o.settings);
    return {
      stats,
      patternUsed: config.patternUsed,
      slicer,
      perimeters: config.perimeters,
      cpuMs: r.cpuMs,
      durationMs: performance.now() - started,
      gcodeReadMs: performance.now() - reading,
    };
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
