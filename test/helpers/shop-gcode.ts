// "The shop's desktop" for the import check: the bare slicer of the server's binary, with a flat config as Export
// Config writes it, slices the reference part into text G-code or, with binary_gcode = 1, binary G-code (.bgcode),
// as the merchant's own PrusaSlicer exports them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { referencePart } from '../../server/profiles/reference-part.ts';
import { flatIni } from './vendor-preset.ts';

export interface ShopSlice {
  slicer: string;
  options: Record<string, string>;
  format: 'text' | 'binary';
  /** The reference part as downloaded; the server's own bytes without it. */
  part?: { name: string; bytes: Uint8Array };
}

export function shopGcode({ slicer, options, format, part }: ShopSlice): Uint8Array {
  const { name, bytes } = part ?? { name: referencePart.name, bytes: referencePart.bytes() };
  const work = mkdtempSync(path.join(tmpdir(), 'sq-shop-gcode-'));
  try {
    writeFileSync(
      path.join(work, 'config.ini'),
      flatIni({ ...options, binary_gcode: format === 'binary' ? '1' : '0' }),
    );
    writeFileSync(path.join(work, name), bytes);
    const out = path.join(work, format === 'binary' ? 'out.bgcode' : 'out.gcode');
    execFileSync(
      slicer,
      ['--loglevel', '1', '--datadir', path.join(work, 'data'), '--export-gcode', '--load', 'config.ini'].concat([
        '--output',
        out,
        name,
      ]),
      { cwd: work, env: { PATH: process.env.PATH, HOME: work, LC_ALL: 'C' }, stdio: 'ignore' },
    );
    return readFileSync(out);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
