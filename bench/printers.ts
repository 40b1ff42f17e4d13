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

const MODELS = ['stl/3DBenchy.stl', 'stl/heartgears.stl', 'obj/fandisk.obj'];

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
      for (const model of MODELS) {
        const file = path.join(modelsDir, model);
        const upload = await api.uploadBytes('/v2/file', new Uint8Array(readFileSync(file)), path.basename(file));
        const quote = await api.post(`/v2/file/quote/${upload.body.file_id}`, {
          material_config: { filament_type: pick.filament },
        });
        version = quote.body.slicer?.version ?? version;
        if (quote.status !== 200) throw new Error(`${model} on ${pick.printer}: ${JSON.stringify(quote.body)}`);
        const bare = await bareSlice(
          binary,
          flatIni(flat),
          file,
          Number(flat.filament_density),
          Number(flat.filament_diameter),
        );
        const { filament_weight_g: grams, print_time_s: seconds } = quote.body.print_stats;
        rows.push({
          printer: `${pick.printer} · ${pick.print} · ${pick.filament}`,
          model,
          quote: { grams: Number(grams.toFixed(2)), minutes: Number((seconds / 60).toFixed(1)) },
          bare_slicer: { grams: Number(bare.grams.toFixed(2)), minutes: Number((bare.seconds / 60).toFixed(1)) },
          weight_diff_percent: percent(grams, bare.grams),
          time_diff_percent: percent(seconds, bare.seconds),
        });
      }
    }
    return {
      slicer: { binary, version },
      load_1min: Number(loadavg()[0]!.toFixed(2)),
      targets: 'weight within 0.5 %, time within 1 % of the bare slicer with the same presets',
      library_picks: rows,
      slicer_tree_disk: treeDisk(binary),
    };
  } finally {
    await server.stop();
  }
}
