// `npm run bench -- printers`: quotes on the shop's own printer. Each printer is picked from the printer library
// (POST /v2/profiles/import with {library}), a model is quoted with it, and the bare PrusaSlicer CLI slices the same
// model with the same vendor presets written as PrusaSlicer's flat export: the differences in weight and time are
// the fidelity of a library pick. Also what the PrusaSlicer tree the server slices with takes on disk.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseGcodeFile } from '../server/slicer/gcode-stats.ts';
import { startTestServer } from '../test/helpers/server.ts';
import { flatIni, type VendorPick, vendorFlatOptions } from '../test/helpers/vendor-preset.ts';

interface LibraryPrinter extends VendorPick {
  vendor: string;
}

const PRINTERS: LibraryPrinter[] = [
  {
    vendor: 'PrusaResearch',
    printer: 'Original Prusa i3 MK3S & MK3S+',
    print: '0.20mm QUALITY @MK3',
    filament: 'Prusament PLA',
  },
  {
    vendor: 'Creality',
    printer: 'Creality Ender-3 (0.4 mm nozzle)',
    print: '0.20 mm NORMAL (0.4 mm nozzle) @CREALITY',
    filament: 'Generic PLA @CREALITY',
  },
];

/**
 * The models quoted on each printer, with the estimator benchmark's split (bench/estimate-corpus.ts): heartgears and
 * fandisk are among the models the shipped calibration was fitted on, 3DBenchy is its development set, and the two
 * 3MFs are from the final held-out set, never used for fitting or for choosing terms.
 */
const MODELS: { file: string; split: 'train' | 'dev' | 'final' }[] = [
  { file: 'stl/3DBenchy.stl', split: 'dev' },
  { file: 'stl/heartgears.stl', split: 'train' },
  { file: 'obj/fandisk.obj', split: 'train' },
  { file: '3mf/conformance/examples/torus_proc.3mf', split: 'final' },
  { file: '3mf/conformance/examples/multiple_cylinders.3mf', split: 'final' },
];

const percent = (ours: number, bare: number) => Number(((100 * (ours - bare)) / bare).toFixed(2));

/** The bare slicer of the server's binary with `ini` on `model`: grams (from its volume and the preset's density) and seconds. */
async function bareSlice(binary: string, ini: string, model: string, density: number, filamentDiameter: number) {
  const work = mkdtempSync(path.join(tmpdir(), 'sq-bench-printers-'));
  try {
    writeFileSync(path.join(work, 'config.ini'), ini);
    const out = path.join(work, 'out.gcode');
    const args = ['--loglevel', '1', '--datadir', path.join(work, 'data'), '--export-gcode', '--load', 'config.ini'];
    execFileSync(binary, [...args, '--output', out, model], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: work, LC_ALL: 'C' },
      stdio: 'ignore',
    });
    const measure = await parseGcodeFile(out, { filamentDiameter });
    return { grams: (measure.extruded_volume_mm3 * density) / 1000, seconds: measure.print_time_s };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function treeDisk(binary: string): { tree: string; bytes: number } | null {
  const tree = path.dirname(binary);
  if (!binary.includes('prusa-slicer-')) return null; // Debian's 2.5 in /usr/bin: no tree of ours
  const bytes = Number(execFileSync('du', ['-sb', tree], { encoding: 'utf8' }).split('\t')[0]);
  return { tree, bytes };
}

/**
 * What setup's install of PrusaSlicer 2.9 costs on a machine without it: a fresh install into a temporary cache
 * (Debian trixie's packages fetched, unpacked and trimmed), its wall time, each step as the script reports it, and
 * the tree's size. Null when trixie cannot be reached.
 */
export function benchSlicerInstall() {
  const cache = mkdtempSync(path.join(tmpdir(), 'sq-bench-install-'));
  try {
    const tree = path.join(cache, 'prusa-slicer-bench');
    const started = performance.now();
    const run = spawnSync('bash', ['scripts/install-prusa-slicer.sh', tree], {
      env: { ...process.env, SLICEQUOTE_SETUP_TIMING: '1' },
      encoding: 'utf8',
    });
    const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
    if (run.status !== 0) return { installed: false, seconds, message: run.stderr.trim().slice(-300) };
    const bytes = Number(execFileSync('du', ['-sb', tree], { encoding: 'utf8' }).split('\t')[0]);
    const steps = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('setup: '))
      .map((line) => line.slice('setup: '.length));
    return { installed: true, seconds, tree_bytes: bytes, steps, load_1min: Number(loadavg()[0]!.toFixed(2)) };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

type Api = ReturnType<Awaited<ReturnType<typeof startTestServer>>['client']>;

/**
 * A cold quote as a shopper's asynchronous one runs: the instant estimate its 202 (or, when the estimate came later,
 * its job) showed while it sliced, and the exact quote it became.
 */
async function quoteWithEstimate(api: Api, fileId: string, filament: string) {
  const accepted = await api.post(`/v2/file/quote/${fileId}/async`, { material_config: { filament_type: filament } });
  if (accepted.status !== 202) throw new Error(`quote of ${fileId}: ${JSON.stringify(accepted.body)}`);
  let estimate = accepted.body.estimate ?? null;
  for (;;) {
    const job = await api.get(accepted.body.status_url, { prefer: 'wait=30' });
    estimate ??= job.body.estimate ?? null;
    if (job.body.status === 'completed') return { quote: job.body.result, estimate };
    if (job.body.status === 'failed') throw new Error(`quote of ${fileId}: ${JSON.stringify(job.body)}`);
  }
}

interface EstimateRow {
  weight_error_percent: number;
  time_error_percent: number;
  weight_inside: boolean;
  time_inside: boolean;
}

/** The estimate against the exact quote: signed errors in per cent and whether the ranges held the exact figures. */
function estimateAgainst(e: Record<string, any>, grams: number, seconds: number): EstimateRow {
  const [wLo, wHi] = e.weight_range as [number, number];
  const [tLo, tHi] = e.time_range as [number, number];
  return {
    weight_error_percent: percent(e.filament_weight, grams),
    time_error_percent: percent(e.estimated_time_seconds, seconds),
    weight_inside: wLo <= grams && grams <= wHi,
    time_inside: tLo <= seconds && seconds <= tHi,
  };
}

/** Median and largest absolute error, and how often the range held the exact figure, over the rows estimated. */
function estimateSummary(rows: Record<string, unknown>[]) {
  const estimated = rows.map((r) => r.estimate as EstimateRow | null).filter((e): e is EstimateRow => e !== null);
  const abs = (xs: number[]) => xs.map(Math.abs).sort((a, b) => a - b);
  const median = (xs: number[]) => (xs.length ? (xs[(xs.length - 1) >> 1]! + xs[xs.length >> 1]!) / 2 : null);
  const weight = abs(estimated.map((e) => e.weight_error_percent));
  const time = abs(estimated.map((e) => e.time_error_percent));
  return {
    estimated: estimated.length,
    of: rows.length,
    weight_error_percent: { median: median(weight), max: weight.at(-1) ?? null },
    time_error_percent: { median: median(time), max: time.at(-1) ?? null },
    both_inside_range: estimated.filter((e) => e.weight_inside && e.time_inside).length,
  };
}

export async function benchPrinters(modelsDir: string) {
  const server = await startTestServer();
  try {
    const { slicerBinary: binary, slicerProfilesDir } = server.deps.config;
    const rows: Record<string, unknown>[] = [];
    let version: string | null = null;
    for (const pick of PRINTERS) {
      const api = server.client((await server.newAccount()).token);
      const library = { vendor: pick.vendor, printer: pick.printer, prints: [pick.print], filaments: [pick.filament] };
      const imported = await api.post('/v2/profiles/import', { library, default: true, keep_custom_gcode: true });
      if (imported.status !== 201) throw new Error(`import of ${pick.printer}: ${JSON.stringify(imported.body)}`);
      const flat = vendorFlatOptions(pick, binary, path.join(slicerProfilesDir, `${pick.vendor}.ini`));
      for (const { file: model, split } of MODELS) {
        const file = path.join(modelsDir, model);
        const upload = await api.uploadBytes('/v2/file', new Uint8Array(readFileSync(file)), path.basename(file));
        const { quote, estimate } = await quoteWithEstimate(api, upload.body.file_id, pick.filament);
        version = quote.slicer?.version ?? version;
        // The canonical mesh the server slices (one object, its parts merged, in millimetres): a multi-object 3MF read
        // by the CLI keeps the file's own placement, which an Ender-3's smaller bed cuts objects off.
        const bare = await bareSlice(
          binary,
          flatIni(flat),
          server.deps.storage.canonicalPath(upload.body.file_id),
          Number(flat.filament_density),
          Number(flat.filament_diameter),
        );
        const { filament_weight_g: grams, print_time_s: seconds } = quote.print_stats;
        rows.push({
          printer: `${pick.printer} · ${pick.print} · ${pick.filament}`,
          model,
          split,
          quote: { grams: Number(grams.toFixed(2)), minutes: Number((seconds / 60).toFixed(1)) },
          bare_slicer: { grams: Number(bare.grams.toFixed(2)), minutes: Number((bare.seconds / 60).toFixed(1)) },
          weight_diff_percent: percent(grams, bare.grams),
          time_diff_percent: percent(seconds, bare.seconds),
          estimate: estimate && estimateAgainst(estimate, grams, seconds),
        });
      }
    }
    return {
      slicer: { binary, version },
      load_1min: Number(loadavg()[0]!.toFixed(2)),
      targets: 'weight within 0.5 %, time within 1 % of the bare slicer with the same presets',
      library_picks: rows,
      estimate_on_library_printers: estimateSummary(rows),
      slicer_tree_disk: treeDisk(binary),
    };
  } finally {
    await server.stop();
  }
}
