// The vendor bundles in PrusaSlicer's profiles folder (`*.ini`; the `.idx` indexes and per-vendor folders of
// thumbnails are not read), and a signature of them that changes when any file is added, removed or rewritten.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface BundleFile {
  /** The file name without `.ini`: the vendor's id in the library. */
  id: string;
  path: string;
}

/** A folder that does not exist or cannot be read has no bundles. */
export function bundleFiles(dir: string): { files: BundleFile[]; signature: string } {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.ini'));
  } catch {
    return { files: [], signature: `${dir}|missing` };
  }
  const files = names.sort().map((name) => ({ id: name.slice(0, -4), path: path.join(dir, name) }));
  const stamps = files.map((file) => {
    try {
      const stat = statSync(file.path);
      return `${file.id}:${stat.size}:${stat.mtimeMs}`;
    } catch {
      return `${file.id}:gone`;
    }
  });
  return { files, signature: [dir, ...stamps].join('|') };
}
