// Which quote a worker slices next (docs/limits.md, "Slicer time"). Not first come, first served: the account
// with the fewest slices running now goes first, so that an account whose flood holds the slots yields the next
// free one to any other account that waits; among equals, the account that used the slicer least recently (slicer
// seconds of the last 15 minutes, plus the predicted seconds of what it has slicing now); then, within the
// account, the same two rules among its callers; then the shopper before the merchant's API, then age. A worker's
// last free slot is never taken by an account that holds one of its other slots: another account's quote always
// finds a slot as soon as it comes. A worker's short lane takes only quotes predicted short. The claim is one SQL statement (FOR UPDATE SKIP LOCKED), so any number of
// worker processes can claim side by side; each answers for its own slots.
import type { Queryable } from '../db/index.ts';
import type { QuoteRow, QuoteStatus } from './sql.ts';

/** Slicer use older than this no longer weighs on the order of claims. */
export const FAIR_SHARE_WINDOW_S = 900;

/** What this worker holds, for the rule of its last free slot; and whether the claim is for its short lane. */
export interface SlotRule {
  /** The claim is for the worker's last free slot (and it has more than one). */
  lastSlot: boolean;
  /** Accounts holding the worker's other slots. */
  heldAccounts: string[];
  /**
   * The claim is for the short lane: only a quote predicted at most this many seconds (and that has not outgrown
   * the lane once) may take it.
   */
  shortLaneS?: number;
}

/** A claimed job, with how many more of its account's quotes wait (a backlog marks bulk work: see sliceNiceness). */
export type ClaimedJob = QuoteRow & { previous_status: QuoteStatus; backlog: number };

/**
 * Claims the next quote for `owner`. `slicing`: the quotes this worker is slicing now, never claimed again by it even
 * when their lease lapsed (a heartbeat late on a loaded host): a second slice of the same job in the same process
 * would count an attempt that was never lost. Another worker may still take such a job over; the first one's
 * heartbeat then finds the lease gone and stops its slice.
 */
export async function claimJob(
  db: Queryable,
  owner: string,
  leaseMs: number,
  rule: SlotRule,
  slicing: readonly string[] = [],
): Promise<ClaimedJob | undefined> {
  const [row] = await db.query<ClaimedJob>(
    `WITH busy AS (
       SELECT account_id, coalesce(caller, '') AS caller FROM quotes
       WHERE status = 'processing' AND lease_expires_at >= now()
       UNION ALL
       SELECT account_id, coalesce(caller, '') FROM prefetches WHERE lease_expires_at >= now()),
     used AS (
       SELECT account_id, caller, seconds::float8 AS s FROM slicer_usage
       WHERE at > now() - make_interval(secs => $3::float8)
       UNION ALL
       SELECT account_id, coalesce(caller, ''), coalesce(predicted_s, 0)::float8 FROM quotes
       WHERE status = 'processing' AND lease_expires_at >= now()
       UNION ALL
       SELECT account_id, coalesce(caller, ''), coalesce(predicted_s, 0)::float8 FROM prefetches
       WHERE lease_expires_at >= now()),
     busy_account AS (SELECT account_id, count(*) AS n FROM busy GROUP BY account_id),
     busy_caller AS (SELECT account_id, caller, count(*) AS n FROM busy GROUP BY account_id, caller),
     used_account AS (SELECT account_id, sum(s) AS s FROM used GROUP BY account_id),
     used_caller AS (SELECT account_id, caller, sum(s) AS s FROM used GROUP BY account_id, caller),
     next AS (
       SELECT q.id, q.status AS previous_status FROM quotes q
       LEFT JOIN busy_account ba ON ba.account_id = q.account_id
       LEFT JOIN used_account ua ON ua.account_id = q.account_id
       LEFT JOIN busy_caller bc ON bc.account_id = q.account_id AND bc.caller = coalesce(q.caller, '')
       LEFT JOIN used_caller uc ON uc.account_id = q.account_id AND uc.caller = coalesce(q.caller, '')
       WHERE (q.status = 'queued' OR (q.status = 'processing' AND q.lease_expires_at < now()
                                       AND NOT (q.id = ANY($7::text[]))))
         AND NOT EXISTS (SELECT 1 FROM quotes o WHERE o.slicing_key = q.slicing_key AND o.id <> q.id
                           AND o.status = 'processing' AND o.lease_expires_at >= now())
         AND NOT EXISTS (SELECT 1 FROM prefetches p WHERE p.slicing_key = q.slicing_key AND p.lease_expires_at >= now())
         AND (NOT $4::boolean OR NOT (q.account_id = ANY($5::text[])))
         AND ($6::float8 IS NULL
              OR (q.predicted_s IS NOT NULL AND q.predicted_s <= $6::float8 AND NOT q.short_lane_outgrown))
       ORDER BY coalesce(ba.n, 0), coalesce(ua.s, 0), coalesce(bc.n, 0), coalesce(uc.s, 0), q.priority, q.created_at
       LIMIT 1 FOR UPDATE OF q SKIP LOCKED)
     UPDATE quotes q SET status = 'processing', progress = 5, attempts = q.attempts + 1, lease_owner = $1,
       lease_expires_at = now() + make_interval(secs => $2::float8 / 1000), started_at = coalesce(q.started_at, now()),
       expected_done_at = NULL, slower_than_predicted = false
     FROM next WHERE q.id = next.id
     RETURNING q.*, next.previous_status,
       (SELECT count(*) FROM quotes w WHERE w.account_id = q.account_id AND w.status = 'queued' AND w.id <> q.id)::int
         AS backlog`,
    [owner, leaseMs, FAIR_SHARE_WINDOW_S, rule.lastSlot, rule.heldAccounts, rule.shortLaneS ?? null, slicing],
  );
  return row;
}
