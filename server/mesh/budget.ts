// What a file's size can justify (docs/limits.md, "Fair parsing"): how many bytes a 3MF may inflate to, how much
// CPU time its parse may use, and whether it is small enough for the worker kept for small files.
import { DEFAULT_LIMITS, type ParseLimits } from '../../shared/model/index.ts';

const MiB = 1024 * 1024;

/**
 * Uncompressed bytes a 3MF may state per byte uploaded. Real models compress 4–10 to 1 (the test corpus: 3DBenchy
 * 5.5, the conformance samples at most 10); a flood of identical XML elements compresses several hundred to one.
 */
export const MAX_COMPRESSION_RATIO = 50;
/** What any 3MF may inflate to whatever its ratio: a tiny file with a high ratio still parses in well under 2 s. */
export const RATIO_FREE_BYTES = 16 * MiB;

/** A parse may always use this much CPU: instancing (a few KB placing millions of triangles) costs work, not bytes. */
export const BASE_PARSE_MS = 10_000;
/**
 * The slowest a parse must go: bytes read (the upload, or a 3MF's XML) per millisecond of the parse thread's CPU
 * time, for reading, measuring and writing the canonical mesh. Counted in CPU time, the rate does not depend on
 * the host's load; it was first set for wall time on a 2-core machine under a load average of 18 (a 193 MB STL
 * at 8 MB/s, a 3MF's XML at about 12 MB/s), so in CPU time it leaves a wide margin.
 */
export const BYTES_PER_MS = (2 * MiB) / 1000;
/**
 * A parse that uses no CPU time for this long (or for its whole CPU budget, if longer) is stopped: its worker is
 * stalled on I/O or blocked. A busy host only slows a parse, however much: its thread still gets CPU time now and
 * then (a niced worker beside a dozen busy processes on 2 cores, about 2 % of a core), so a valid file is never
 * refused because the host is loaded.
 */
export const PARSE_STALL_MS = 30_000;

/**
 * The niceness of the shared workers' threads: their slow parses yield the cores to the small-file worker and the
 * API's event loop, as long slices yield them to short ones.
 */
export const SHARED_WORKER_NICENESS = 10;

/** At most this size a file may use the worker kept for small files (a 1 MiB STL parses in about 20 ms). */
export const SMALL_FILE_BYTES = MiB;

/**
 * The work a parse may do on the small-file worker, counted by the parser as it goes: bytes read (a 3MF's inflated
 * XML included), vertices and triangles placed (every instance counted), objects instantiated. Each is linear work,
 * so a parse within them ends in a fraction of a second (2 MiB of 3MF XML: about 0.15 s of CPU); a file that needs
 * more stops at the first one it passes, the worker healthy and free at once, and is handed to the shared workers.
 * Parsing is what counts: no file can make the small-file worker do more by being slow per byte.
 */
export const SMALL_LANE_LIMITS = Object.freeze({
  maxInflatedBytes: 2 * MiB,
  maxVertices: 100_000,
  maxTriangles: 100_000,
  maxObjects: 1000,
}) satisfies Partial<ParseLimits>;

/** The worker's answer for a parse that passed the small-file worker's counts (never an answer to a user). */
export const SMALL_LANE_OUTGROWN = 'small_lane_outgrown';

/** The parser's refusals for passing one of its counts: on the small-file worker, a file to hand on, not refuse. */
export const COUNTED_WORK_CODES: ReadonlySet<string> = new Set([
  'inflated_too_large',
  'too_many_instances',
  'too_many_objects',
  'too_many_triangles',
  'too_many_vertices',
]);

/** The bytes a 3MF of this size may inflate to: the ratio's share, never less than the free bytes. */
export function inflatedAllowance(fileBytes: number): number {
  return Math.min(DEFAULT_LIMITS.maxInflatedBytes, Math.max(RATIO_FREE_BYTES, MAX_COMPRESSION_RATIO * fileBytes));
}

/** The CPU ms parsing a file may use: the base plus its bytes at the slowest rate, at most `maxMs`. */
export function parseBudgetMs(fileBytes: number, zip: boolean, maxMs: number): number {
  const read = zip ? inflatedAllowance(fileBytes) : fileBytes;
  return Math.min(maxMs, Math.ceil(BASE_PARSE_MS + read / BYTES_PER_MS));
}
