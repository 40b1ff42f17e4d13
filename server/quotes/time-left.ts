// What a waiting shopper is told (docs/instant-price.md, "Progress a shopper believes"): the step the quote is at,
// in plain words rather than the slicer's own stages, and the seconds left, from the predicted slice costs of the
// quote and of the work ahead of it in this host's clock seconds (server/quotes/slice-cost.ts), re-estimated as the
// slicer reports its stages, with the reason when the time left is longer than the quote's own prediction (so that a
// client may say why it grew).
import type { Deps } from '../deps.ts';
import type { SliceProgress } from '../slicer/index.ts';
import { wallPerPredictedSecond } from './slice-cost.ts';
import type { QuoteRow } from './sql.ts';

/** Where a quote is, as a shopper would say it. */
export type JobStep = 'queued' | 'preparing' | 'slicing' | 'pricing';

/**
 * PrusaSlicer's stages ("10 => Processing triangulated mesh", "20 => Generating perimeters", …, "90 => Exporting
 * G-code to …") mapped to steps: reading the mesh is preparing, exporting the G-code (which yields the print time
 * and filament the price is made from) is pricing, and everything between is slicing.
 */
export function stepOf(row: Pick<QuoteRow, 'status' | 'stage'>): JobStep | null {
  if (row.status === 'queued') return 'queued';
  if (row.status !== 'processing') return null;
  const stage = row.stage ?? '';
  if (/export|g-?code/i.test(stage)) return 'pricing';
  if (stage === '' || /processing triangulated|loading|mesh/i.test(stage)) return 'preparing';
  return 'slicing';
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Why a quote's time left is more than its own predicted slice: it waits for slices ahead of it (`queue`), for the
 * same slice another request is making (`same_slice`), or its slice is taking longer than predicted
 * (`slower_than_predicted`). Null: the figure is the quote's own prediction.
 */
export type TimeLeftReason = 'queue' | 'same_slice' | 'slower_than_predicted';

/** The step of an unfinished quote, its seconds left, why they are more than its own slice, and the slices ahead. */
export interface JobTimeLeft {
  step: JobStep | null;
  expected_remaining_seconds: number | null;
  expected_remaining_reason: TimeLeftReason | null;
  slices_ahead: number | null;
}

/**
 * Seconds a queued quote should still wait: until the same slice ends when a prefetch or another quote is making
 * it; otherwise the slices ahead of it (those running, and the queued ones it comes after) shared over the
 * slicer's slots, then its own predicted slice. Null when nothing is known of its cost.
 */
async function queuedTimeLeft(
  deps: Pick<Deps, 'db' | 'config' | 'now'>,
  row: QuoteRow,
  now: Date,
): Promise<Omit<JobTimeLeft, 'step'>> {
  // Predictions are CPU seconds; a shopper waits clock seconds, as many per predicted one as this host's slices took.
  const wallPerPredicted = await wallPerPredictedSecond(deps);
  const [r] = await deps.db.query<{
    same_ms: number | null;
    running_ms: number;
    running: number;
    ahead_s: number;
    ahead: number;
  }>(
    `SELECT
       (SELECT min(ms) FROM (
          SELECT extract(epoch FROM (o.expected_done_at - $3::timestamptz)) * 1000 AS ms FROM quotes o
          WHERE o.slicing_key = $1 AND o.id <> $2 AND o.status = 'processing' AND o.lease_expires_at >= now()
            AND o.expected_done_at IS NOT NULL
          UNION ALL
          SELECT extract(epoch FROM (coalesce(p.expected_done_at,
                   p.started_at + make_interval(secs => coalesce(p.predicted_s, 0)::float8 * $6)) - $3::timestamptz)) * 1000
          FROM prefetches p
          WHERE p.slicing_key = $1 AND p.lease_expires_at >= now() AND p.started_at IS NOT NULL) same)::float8
         AS same_ms,
       (SELECT coalesce(sum(greatest(0, extract(epoch FROM (o.expected_done_at - $3::timestamptz)) * 1000)), 0)
        FROM quotes o WHERE o.status = 'processing' AND o.lease_expires_at >= now())::float8 AS running_ms,
       (SELECT count(*) FROM quotes o WHERE o.status = 'processing' AND o.lease_expires_at >= now())::int AS running,
       (SELECT coalesce(sum(coalesce(w.predicted_s, 0)), 0) FROM quotes w
        WHERE w.status = 'queued' AND w.id <> $2 AND (w.priority, w.created_at) < ($4, $5))::float8 AS ahead_s,
       (SELECT count(*) FROM quotes w
        WHERE w.status = 'queued' AND w.id <> $2 AND (w.priority, w.created_at) < ($4, $5))::int AS ahead`,
    [row.slicing_key, row.id, now, row.priority, row.created_at, wallPerPredicted],
  );
  const none = { expected_remaining_seconds: null, expected_remaining_reason: null, slices_ahead: null };
  if (!r) return none;
  if (r.same_ms !== null)
    return { expected_remaining_seconds: seconds(r.same_ms), expected_remaining_reason: 'same_slice', slices_ahead: 0 };
  const slots = Math.max(1, deps.config.slicerConcurrency);
  // A free slot takes it at once; otherwise the work ahead is shared over the slots.
  const waiting = r.running + r.ahead >= slots;
  const ahead = {
    expected_remaining_reason: waiting ? ('queue' as const) : null,
    slices_ahead: waiting ? r.ahead + r.running : 0,
  };
  if (row.predicted_s === null) return { ...ahead, expected_remaining_seconds: null };
  const waitMs = waiting ? (r.running_ms + r.ahead_s * wallPerPredicted * 1000) / slots : 0;
  return { ...ahead, expected_remaining_seconds: seconds(waitMs + row.predicted_s * wallPerPredicted * 1000) };
}

/** The step and the seconds left of an unfinished quote, with their reason (all null once it has finished). */
export async function jobProgress(
  deps: Pick<Deps, 'db' | 'config' | 'now'>,
  row: QuoteRow,
  now: Date,
): Promise<JobTimeLeft> {
  const step = stepOf(row);
  if (row.status === 'processing')
    return {
      step,
      expected_remaining_seconds: row.expected_done_at ? seconds(row.expected_done_at.getTime() - now.getTime()) : null,
      expected_remaining_reason: row.expected_done_at && row.slower_than_predicted ? 'slower_than_predicted' : null,
      slices_ahead: null,
    };
  if (row.status === 'queued') return { step, ...(await queuedTimeLeft(deps, row, now)) };
  return { step, expected_remaining_seconds: null, expected_remaining_reason: null, slices_ahead: null };
}

/**
 * The share of a slice's clock time already spent when PrusaSlicer reaches each stage: 2.9's, measured on 3DBenchy
 * at its default, full-infill, fine and draft settings (medians; a stage moved by up to 0.1 between them), then
 * 2.5's for a server left on it. 2.9 reports its last stages at one moment, about 71 % of the way, and spends the
 * rest exporting the G-code; their names must not be read as earlier ones' ("Calculating overhanging perimeters"
 * is not "Generating perimeters", "Making infill" comes long after "Preparing infill"). Its own percentages are not
 * times: it says 45 for "Making infill" and 90 for the export.
 */
const STAGE_SHARES: [RegExp, number][] = [
  [/processing triangulated/i, 0.06],
  [/generating perimeters/i, 0.14],
  [/preparing infill/i, 0.26],
  [/making infill/i, 0.61],
  [/searching support spots/i, 0.69],
  [/supports needed|overhanging perimeters|skirt|brim|export/i, 0.71],
  // PrusaSlicer 2.5: "Infilling layers", "Generating support material".
  [/infill/i, 0.37],
  [/support/i, 0.5],
];

/**
 * Until this share of a slice has gone by, the pace its stages show is trusted in proportion: the first stages
 * come after the slicer's start-up and say little of the rest, a stage a third of the way through says it well.
 */
const PACE_TRUSTED_SHARE = 0.3;

/**
 * How long a slice is expected to take in all, in ms: its expected length at first, then re-estimated at each stage
 * PrusaSlicer reports from when it was reached and the stage's share. The stage gives the slice's pace against
 * that expectation (infill, 37 % of the way, reached at 2 s of an expected 10 means a 5.4 s slice), and what is left
 * of it takes that pace too, so a slice ahead of or behind its expectation is expected to stay so rather than to
 * make it up.
 */
export function expectedSliceMs(expectedMs: number, stage: string | null, stageReachedMs: number): number {
  const share = stage ? STAGE_SHARES.find(([re]) => re.test(stage))?.[1] : undefined;
  if (!share || stageReachedMs <= 0) return expectedMs;
  const pace = stageReachedMs / (share * expectedMs);
  const trusted = 1 + Math.min(1, share / PACE_TRUSTED_SHARE) * (pace - 1);
  return stageReachedMs + (1 - share) * expectedMs * trusted;
}

/** A slice whose expected length exceeds its prediction by more than this share (and a second) is slower. */
const SLOWER_SHARE = 0.1;

/**
 * Follows one running slice (a quote's or a prefetch's) on the server's clock `now` (ms), expected to take
 * `expectedS` wall seconds on this host (slice-cost.ts, expectedWallSeconds): the length it is expected to have,
 * and when it is expected to end. A slice that reaches its expected end is slow rather than nearly done: it is
 * given half the time it has taken more, and that end holds until it is reached (so the time left counts down to it
 * rather than creeping up at every heartbeat), not a last second that never ends.
 */
export function sliceExpectation(expectedS: number | null, now: () => number) {
  const startedAt = now();
  const predictedMs = Math.max(1000, (expectedS ?? 10) * 1000);
  let stage: string | null = null;
  let stageReachedMs = 0;
  /** The end given to a slice that outran its expected one, ms after its start; 0 before it did. */
  let extendedMs = 0;
  const expectedMs = () => expectedSliceMs(predictedMs, stage, stageReachedMs);
  const endMs = () => {
    const elapsed = now() - startedAt;
    const end = Math.max(expectedMs(), extendedMs);
    if (elapsed >= end) extendedMs = Math.max(elapsed * 1.5, elapsed + 2000);
    return Math.max(expectedMs(), extendedMs);
  };
  return {
    onProgress(p: SliceProgress) {
      if (p.stage === stage) return;
      stage = p.stage;
      stageReachedMs = now() - startedAt;
    },
    expectedMs,
    doneAt(): Date {
      return new Date(startedAt + endMs());
    },
    /** Whether the slice is now expected to take longer than predicted (its stages came late, or it outran its end). */
    slower(): boolean {
      return endMs() > predictedMs * (1 + SLOWER_SHARE) + 1000;
    },
  };
}
