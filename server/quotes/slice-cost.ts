// A quote's slice cost, known before it runs (docs/limits.md, "Slicer time"): the cost model's reference seconds
// (server/slicer/cost.ts) for the file as placed and the quote's settings, times how fast this server's recent
// slices were. All in CPU seconds, the slicer's work, so the host's load changes none of it. It decides whether a
// shopper's part may be sliced at all, how much CPU time its slice may use, whether it may take a worker's last
// free slot, and whether an upload is pre-sliced. What a shopper waits is another measure, the clock's: the same
// prediction in this host's wall seconds (wallPerPredictedSecond) is where the time left starts from.
import { availableParallelism } from 'node:os';
import type { ResolvedSettings } from '../../shared/settings.ts';
import type { Deps } from '../deps.ts';
import type { FileRow } from '../files/index.ts';
import { ApiError } from '../http/index.ts';
import { slicerSpeed, slicerWallRatio } from '../limits/index.ts';
import { type Placement, scaledMeasurements } from '../placement/index.ts';
import { costInputsOf, referenceSeconds } from '../slicer/index.ts';
import { HOST } from '../storage/index.ts';
import type { StoredResolution } from './model.ts';

export interface SliceCost {
  /** CPU seconds on the reference machine the model was fitted on. */
  reference_s: number;
  /** CPU seconds on this server, at its recent speed (its CPU's, not its load's). */
  predicted_s: number;
}

/**
 * A slice predicted to end within this many seconds is short: it may take a worker's last free slot and its short
 * lane, and long slices pause while it runs (docs/limits.md, "The short lane").
 */
export const SHORT_SLICE_S = 15;
/** A short slice stays short until it has used this many times its predicted CPU time, plus SHORT_SLACK_S. */
const SHORT_FACTOR = 2;
/** The slicer's start-up and the model's error on tiny parts: a short slice's allowance is never below this. */
const SHORT_SLACK_S = 5;
/** The least CPU time a slice may use, however cheap it looks: start-up, and the cost model's error on small parts. */
const MIN_TIMEOUT_MS = 60_000;
/**
 * A slice may use this many times its predicted CPU time before it is stopped: far beyond the model's error on
 * held-out models (bench/slice-cost.ts), so an honest part is never cut short, while a part built to look cheap
 * and slice slowly holds its slot for a bounded time and pays for it.
 */
const TIMEOUT_FACTOR = 8;

/**
 * How long speeds read from the database are reused. Short: a new server learns its speeds from its first slices,
 * and a speed read before them (none known) must not stand for a minute of predictions and times left.
 */
export const SPEED_TTL_MS = 5_000;

/** This server's CPU seconds, and this host's clock seconds (null before its first slice), per reference second. */
interface Speeds {
  cpu: number;
  wall: number | null;
}

/** The speeds read last from each database (one per server; tests run several servers in one process). */
const learnt = new WeakMap<object, { at: number; value: Speeds }>();

async function speeds(deps: Pick<Deps, 'db' | 'now'>): Promise<Speeds> {
  const now = deps.now().getTime();
  const known = learnt.get(deps.db);
  if (known && now - known.at <= SPEED_TTL_MS) return known.value;
  const cpu = await slicerSpeed(deps.db).catch(() => 1);
  const wall = await slicerWallRatio(deps.db, HOST).catch(() => null);
  const value = { cpu, wall };
  learnt.set(deps.db, { at: now, value });
  return value;
}

/**
 * The threads PrusaSlicer keeps busy at once on average over a slice, as far as there are cores for them: its
 * stages run in parallel, its G-code export mostly does not (1.57 of 2 on the reference machine, docs/limits.md).
 */
const SLICER_PARALLELISM = 1.57;
/** A host's wall seconds per predicted second are held within these: a run of odd slices cannot swing it further. */
const WALL_PER_PREDICTED_BOUNDS = [0.2, 5] as const;

/**
 * How many clock seconds a predicted (CPU) second of slicing takes on this host: its recent slices' wall seconds
 * per reference second against the CPU speed predictions are made with. Before its first slice, the prediction's
 * CPU time shared over the threads PrusaSlicer keeps busy, as far as the host has cores for them.
 */
export async function wallPerPredictedSecond(deps: Pick<Deps, 'db' | 'now'>): Promise<number> {
  const { cpu, wall } = await speeds(deps);
  if (wall === null) return 1 / Math.min(availableParallelism(), SLICER_PARALLELISM);
  const [least, most] = WALL_PER_PREDICTED_BOUNDS;
  return Math.min(most, Math.max(least, wall / cpu));
}

/**
 * The clock seconds a slice about to start is expected to take on this host, or null when its cost is unknown. Its
 * cost is predicted again rather than read off its row: a prefetch planned before a new server's first slice was
 * predicted at the reference speed, and the speeds learnt since say better.
 */
export async function expectedWallSeconds(
  deps: Pick<Deps, 'db' | 'now'>,
  target: { file: FileRow | undefined; resolved: StoredResolution | null; predicted_s: number | null },
): Promise<number | null> {
  const predicted = (await predictedAgain(deps, target)) ?? target.predicted_s;
  return predicted === null ? null : tenths(predicted * (await wallPerPredictedSecond(deps)));
}

/** The slice's cost predicted at the speed known now; null without the file or its placement. */
async function predictedAgain(
  deps: Pick<Deps, 'db' | 'now'>,
  { file, resolved }: { file: FileRow | undefined; resolved: StoredResolution | null },
): Promise<number | null> {
  const placement = resolved?.placement?.placement;
  if (!file || !placement) return null;
  return (await sliceCost(deps, file, placement, resolved.settings)).predicted_s;
}

const tenths = (s: number) => Math.round(s * 10) / 10;

/** CPU seconds the slice would take on the reference machine. */
export function referenceCost(file: FileRow, placement: Placement, settings: ResolvedSettings): number {
  const inputs = costInputsOf(scaledMeasurements(file), placement.dimensions.z, settings.printer, placement.rotation);
  return tenths(referenceSeconds(inputs));
}

export async function sliceCost(
  deps: Pick<Deps, 'db' | 'now'>,
  file: FileRow,
  placement: Placement,
  settings: ResolvedSettings,
): Promise<SliceCost> {
  const reference = referenceCost(file, placement, settings);
  return { reference_s: reference, predicted_s: tenths(reference * (await speeds(deps)).cpu) };
}

/**
 * The CPU ms a slice may use: a multiple of its prediction, at least MIN_TIMEOUT_MS, at most SLICER_TIMEOUT_MS
 * (a slicer that uses no CPU time for as long is stalled and killed too).
 */
export function sliceTimeoutMs(predictedS: number | null, ceilingMs: number): number {
  if (predictedS === null) return ceilingMs;
  return Math.min(ceilingMs, Math.max(MIN_TIMEOUT_MS, Math.ceil(predictedS * TIMEOUT_FACTOR * 1000)));
}

/** Whether a quote's slice is short (may take the short lane), judged by its prediction. */
export const isShortSlice = (predictedS: number | null): predictedS is number =>
  predictedS !== null && predictedS <= SHORT_SLICE_S;

/**
 * The CPU ms a short slice may use while it is treated as short: twice its prediction and some slack. The cost
 * model's error on held-out parts is up to ×3.4, so an honest part may pass it: in the short lane it is then
 * stopped and sliced again in a normal slot, elsewhere it just runs on as a long slice.
 */
export function shortAllowanceMs(predictedS: number): number {
  return Math.ceil((predictedS * SHORT_FACTOR + SHORT_SLACK_S) * 1000);
}

/** The niceness of a long quote's slice (see sliceNiceness). */
export const LONG_NICENESS = 10;

/** An account with at least this many more quotes waiting is doing bulk work: its slices yield the cores. */
export const BULK_BACKLOG = 2;

/**
 * How nice a slice's process is. A long slice, a slice of an account with a backlog (a flood, or a merchant's
 * batch of API quotes) and a speculative one (a prefetch) yield the cores to the short, interactive quotes beside
 * them, so a shopper waiting for a small part is not slowed by someone's large or many ones: the operating
 * system's scheduler shares the CPU as the claim shares the slots.
 */
export function sliceNiceness(kind: 'quote' | 'prefetch', predictedS: number | null, backlog = 0): number {
  if (kind === 'prefetch') return 15;
  const long = predictedS !== null && predictedS > SHORT_SLICE_S;
  return long || backlog >= BULK_BACKLOG ? LONG_NICENESS : 0;
}

/** One of the offer's qualities a refused choice could take instead (within-limit.ts). */
export interface QualityWithinLimit {
  quality: string;
  label: string;
  predicted_seconds: number;
}

/**
 * A shop's shopper may not ask for a slice beyond the offer's budget: refused before any slicing, naming the
 * choice that is over it and the qualities that are within it (`within`, finest first), never blaming the model.
 */
export function refuseOverLimit(
  cost: SliceCost,
  limitS: number,
  over: { quality: string; label: string } | null,
  within: QualityWithinLimit[],
): never {
  const what = over ? `With ${over.label} this part` : 'With these choices this part';
  const instead = within[0]
    ? `${within[0].label} is within it.`
    : 'Choose a coarser quality, or ask the shop for a quote.';
  throw new ApiError(
    422,
    'model_too_complex',
    `${what} would take about ${Math.round(cost.predicted_s)} s of slicer processor time; the shop prices parts of up to ${limitS} s online. ${instead}`,
    {
      field: 'max_slice_seconds',
      limit_seconds: limitS,
      predicted_seconds: cost.predicted_s,
      ...(over ? { over_limit: over } : {}),
      within_limit: within,
    },
  );
}
