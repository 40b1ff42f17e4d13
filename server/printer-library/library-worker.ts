// Runs in the printer library's worker thread: reads PrusaSlicer's vendor bundles (Prusa Research's is several MB)
// and works out each printer's compatible presets, away from the event loop; and resolves users' config bundles. The result stays in this thread's
// memory, keyed by the folder's files (names, sizes, modification times), so a changed folder is read again.

import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { ApiError } from '../http/index.ts';
import {
  type LibraryPick,
  type LibraryVendor,
  type LoadedVendor,
  loadVendor,
  pickFromLibrary,
  readUserBundle,
} from '../prusa-config/index.ts';
import { type BundleFile, bundleFiles } from './bundle-files.ts';

export type LibraryJob =
  | { kind: 'list'; dir: string }
  | { kind: 'pick'; dir: string; pick: LibraryPick }
  /** A user's config bundle, resolved here so its parse (up to 8 MB) never runs on the event loop. */
  | { kind: 'bundle'; text: string };

export interface LibraryListing {
  vendors: LibraryVendor[];
  /** Bundles that could not be read, with the reason (logged by the API process). */
  skipped: { id: string; reason: string }[];
  signature: string;
  build_ms: number;
  heap_used_bytes: number;
}

interface Loaded {
  signature: string;
  vendors: Map<string, LoadedVendor>;
  listing: LibraryListing;
}

let loaded: Loaded | null = null;

function load(dir: string): Loaded {
  const { files, signature } = bundleFiles(dir);
  if (loaded?.signature === signature) return loaded;
  loaded = null; // the old library is garbage before the new one is built
  const started = performance.now();
  const vendors = new Map<string, LoadedVendor>();
  const skipped: LibraryListing['skipped'] = [];
  for (const file of files) readVendor(file, vendors, skipped);
  const listing: LibraryListing = {
    vendors: [...vendors.values()].map((v) => v.listing).sort((a, b) => a.name.localeCompare(b.name)),
    skipped,
    signature,
    build_ms: Math.round(performance.now() - started),
    heap_used_bytes: process.memoryUsage().heapUsed,
  };
  loaded = { signature, vendors, listing };
  return loaded;
}

function readVendor(file: BundleFile, vendors: Map<string, LoadedVendor>, skipped: LibraryListing['skipped']) {
  try {
    const vendor = loadVendor(file.id, readFileSync(file.path, 'utf8'));
    if (vendor && vendor.listing.printers.length > 0) vendors.set(file.id, vendor);
  } catch (err) {
    skipped.push({ id: file.id, reason: err instanceof Error ? err.message : String(err) });
  }
}

function handle(job: LibraryJob) {
  try {
    if (job.kind === 'bundle') return { ok: true, result: readUserBundle(job.text) };
    const library = load(job.dir);
    const result = job.kind === 'list' ? library.listing : pickFromLibrary(library.vendors, job.pick);
    return { ok: true, result };
  } catch (err) {
    if (err instanceof ApiError)
      return { ok: false, status: err.status, code: err.code, message: err.message, details: err.details ?? null };
    return { ok: false, status: 500, code: 'internal', message: String(err), details: null };
  }
}

parentPort!.on('message', ({ id, job }: { id: number; job: LibraryJob }) =>
  parentPort!.postMessage({ id, ...handle(job) }),
);
